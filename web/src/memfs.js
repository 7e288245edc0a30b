// A read-only file system in memory for Go's os package in the browser:
// wasm_exec.js hands Go's file calls to globalThis.fs (Node's fs API, with
// callbacks), and uses its own stub, which fails every call, only when
// globalThis.fs is not set. The page's models and the files they import
// (the examples and their data) are served from here, so the model is
// loaded by the same loader as from a disk.
const enc = new TextEncoder();
const dec = new TextDecoder();

function fsError(code) {
  const e = new Error(code);
  e.code = code;
  return e;
}

export function installMemFS(files) {
  const data = new Map(); // path → Uint8Array
  const dirs = new Set(["/"]);
  const put = (path, text) => {
    data.set(path, enc.encode(text));
    for (let p = path; p.lastIndexOf("/") > 0; ) {
      p = p.slice(0, p.lastIndexOf("/"));
      dirs.add(p);
    }
  };
  for (const [path, text] of Object.entries(files)) put(path, text);
  const open = new Map(); // fd → {path, pos}
  let nextFD = 100;
  const stat = (path) => {
    const now = Date.now();
    const file = data.get(path);
    if (!file && !dirs.has(path)) return null;
    return {
      dev: 1, ino: 1, mode: file ? 0o100644 : 0o40755, nlink: 1, uid: 0, gid: 0, rdev: 0,
      size: file ? file.length : 0, blksize: 4096, blocks: 0, atimeMs: now, mtimeMs: now, ctimeMs: now,
      isDirectory: () => !file,
    };
  };
  let outBuf = "";
  const constants = { O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_TRUNC: 512, O_APPEND: 1024, O_EXCL: 128, O_DIRECTORY: 65536 };
  globalThis.fs = {
    constants,
    writeSync(fd, buf) {
      outBuf += dec.decode(buf);
      const nl = outBuf.lastIndexOf("\n");
      if (nl !== -1) {
        console.log(outBuf.slice(0, nl));
        outBuf = outBuf.slice(nl + 1);
      }
      return buf.length;
    },
    write(fd, buf, offset, length, position, callback) {
      if (fd === 1 || fd === 2) {
        callback(null, this.writeSync(fd, buf.subarray(offset, offset + length)));
        return;
      }
      callback(fsError("EBADF"));
    },
    open(path, flags, mode, callback) {
      if (flags & (constants.O_WRONLY | constants.O_RDWR | constants.O_CREAT)) return callback(fsError("EACCES"));
      if (!stat(path)) return callback(fsError("ENOENT"));
      const fd = nextFD++;
      open.set(fd, { path, pos: 0 });
      callback(null, fd);
    },
    close(fd, callback) {
      open.delete(fd);
      callback(null);
    },
    read(fd, buffer, offset, length, position, callback) {
      const f = open.get(fd);
      if (!f) return callback(fsError("EBADF"));
      const file = data.get(f.path);
      if (!file) return callback(fsError("EISDIR"));
      const pos = position === null || position === undefined ? f.pos : position;
      const n = Math.max(0, Math.min(length, file.length - pos));
      buffer.set(file.subarray(pos, pos + n), offset);
      if (position === null || position === undefined) f.pos += n;
      callback(null, n);
    },
    fstat(fd, callback) {
      const f = open.get(fd);
      if (!f) return callback(fsError("EBADF"));
      callback(null, stat(f.path));
    },
    stat(path, callback) {
      const s = stat(path);
      s ? callback(null, s) : callback(fsError("ENOENT"));
    },
    lstat(path, callback) {
      this.stat(path, callback);
    },
    readdir(path, callback) {
      if (!dirs.has(path)) return callback(fsError("ENOENT"));
      const names = new Set();
      for (const p of [...data.keys(), ...dirs]) {
        if (p !== path && p.startsWith(path === "/" ? "/" : path + "/")) names.add(p.slice(path === "/" ? 1 : path.length + 1).split("/")[0]);
      }
      callback(null, [...names]);
    },
  };
  for (const name of ["chmod", "chown", "fchmod", "fchown", "fsync", "ftruncate", "lchown", "link", "mkdir", "readlink", "rename", "rmdir", "symlink", "truncate", "unlink", "utimes"]) {
    globalThis.fs[name] = (...args) => args[args.length - 1](fsError("ENOSYS"));
  }
}
