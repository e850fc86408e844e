# Sourced by .ci scripts: sets PYTHON to a CPython >= 3.11 (3.12 preferred: the image's version).
pick_python() {
  local candidate
  for candidate in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      PYTHON=$(command -v "$candidate")
      return 0
    fi
  done
  echo "no Python >= 3.11 found" >&2
  return 1
}
pick_python
