// Runs pytest inside CPython 3.14 (Pyodide's WebAssembly build of it), under Node.
// Usage: node pytest.mjs REPO SITE [pytest arguments...]; exits with pytest's status.
// REPO and SITE (the pure-Python wheels, installed for 3.14) are mounted from the host, so the
// tests read the checkout itself; no bytecode is written into it.
import { loadPyodide } from "pyodide";

const [repo, site, ...args] = process.argv.slice(2);
if (!repo || !site) {
  console.error("usage: node pytest.mjs REPO SITE [pytest arguments...]");
  process.exit(2);
}
const py = await loadPyodide();
const raw = (stream) => ({ write: (bytes) => { stream.write(bytes); return bytes.length; } });
py.setStdout(raw(process.stdout));
py.setStderr(raw(process.stderr));
for (const [host, where] of [[repo, "/repo"], [site, "/site"]]) {
  py.FS.mkdirTree(where);
  py.FS.mount(py.FS.filesystems.NODEFS, { root: host }, where);
}
py.globals.set("ARGS", py.toPy(args));
const status = py.runPython(`
import os, sys
sys.dont_write_bytecode = True
sys.path[:0] = ["/site", "/repo"]
os.chdir("/repo")
import pytest
int(pytest.main(["-p", "no:cacheprovider", *ARGS]))
`);
process.exit(status);
