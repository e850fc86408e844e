# Sourced by .ci scripts: sets PYTHON to a CPython >= 3.11 (3.12 preferred: the image's version).
# Candidates: python3.12 on PATH, then any 3.12 that pyenv manages (its shim may exist without
# being runnable), then python3.
pick_python() {
  local candidate pyenv_root=""
  if command -v pyenv >/dev/null 2>&1; then
    pyenv_root=$(pyenv root 2>/dev/null || true)
  fi
  for candidate in python3.12 ${pyenv_root:+"$pyenv_root"/versions/3.12*/bin/python3.12} python3; do
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
