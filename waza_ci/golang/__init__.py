"""Go as waza sees it: one module per Go package whose behaviour waza's texts and verdicts
show, restated in Python. A leaf: it imports nothing else of waza_ci, and every stage may use
it, so each piece of Go's behaviour is written once.

strconv.py       `Quote` (`%q` of a string), `ParseBool`
strings.py       `TrimSpace`, `ToLower`, `ToUpper`
fmt.py           `%v` of lists, maps and floats
os.py            errno texts, a child's exit text, `os.ReadFile` with its error texts
filepath.py      `Clean`, `Abs`
regexp.py        RE2 with Go's semantics, Unicode class names and error texts
json.py          `Marshal` (compact) and `MarshalIndent` written as a stream
json_scanner.py  `Unmarshal` and `Decoder` reading JSON, with the scanner's error texts
yaml.py          yaml.v3: nulls, keys, and scalars as it resolves them
errors.py        `GoError`, the base of every exception that carries Go's error text
"""
