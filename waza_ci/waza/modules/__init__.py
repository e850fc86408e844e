"""waza's grader modules (`- ref: github.com/<owner>/<repo>#<export>@<version>`), as `waza get`
writes them and `waza run` reads them: pinned by `waza.lock`, kept in waza's module cache.

ref.py       the ref grammar: host/owner/repo[/path][#export]@version, exact versions only
lock.py      `waza.lock` beside the eval: each ref's commit and the preset's sha256 digest
manifest.py  `waza.registry.yaml` at a module's root: which file each export is
cache.py     the module cache ({root}/{host}/{owner}/{repo}/{commit}/) and the digest
expand.py    a ref entry and its preset merged into an ordinary grader entry (local wins)
resolve.py   one ref resolved: the lock, then the cache, then a fetch at the locked commit
"""
