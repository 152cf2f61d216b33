"""Calls system calls inside a sandbox and prints, one line each, what became of them.

Data-driven: the calls file (written by the Java test from SeccompFilter's own table, so the
numbers have one source) holds one request a line:

  call <label> <nr> [arg ...]   syscall(nr, args...); an arg is an integer (decimal or 0x...,
                                 up to 64 bits, as the register holds it) or s:<text>, a pointer
                                 to that NUL-terminated text
  native <label> <hex>          x86_64 machine code run as a function returning a long (to reach
                                 the i386 and x32 ABIs, which libc.syscall cannot)
  threads <label> <n>           start n Python threads and join them
  status <label> <field>        the value of <field> in /proc/self/status (Seccomp: 2 = filtered)
  ret <label> <nr> [arg ...]    as call, but prints what the call returned, or err=<errno>

Each request runs in a forked child, so a call that succeeds (in a run without the filter) cannot
change the probe itself. Output, one line each: "<label> <errno>" for call (0 when it succeeded),
"<label> ret=<value>" for native, "<label> 0" for threads, the field's value for status, or "<label> signal=<n>" if the child
was killed (seccomp's KILL_PROCESS is SIGSYS, 31).
"""
import ctypes
import mmap
import os
import sys
import threading


def to_arg(token, keep):
    if token.startswith("s:"):
        buf = ctypes.create_string_buffer(token[2:].encode())
        keep.append(buf)
        return ctypes.cast(buf, ctypes.c_void_p)
    return ctypes.c_ulong(int(token, 0) & 0xFFFFFFFFFFFFFFFF)


def do_call(libc, fields):
    nr = int(fields[0], 0)
    keep = []
    args = [to_arg(t, keep) for t in fields[1:]]
    me = os.getpid()
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    err = ctypes.get_errno()
    if os.getpid() != me:
        # a clone that succeeded: this is the new process, which has nothing to report
        os._exit(0)
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        pass
    return "0" if r != -1 else str(err)


def do_ret(libc, fields):
    keep = []
    args = [to_arg(t, keep) for t in fields[1:]]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(int(fields[0], 0)), *args)
    return str(r) if r != -1 else "err=%d" % ctypes.get_errno()


def do_native(fields):
    code = bytes.fromhex(fields[0])
    m = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    m.write(code)
    fn = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
    return "ret=%d" % fn()


def do_threads(fields):
    n = int(fields[0])
    done = []
    ts = [threading.Thread(target=done.append, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return "0" if sorted(done) == list(range(n)) else "lost"


def do_status(fields):
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key == fields[0]:
                return value.strip()
    return "absent"


def run(libc, kind, fields):
    if kind == "call":
        return do_call(libc, fields)
    if kind == "native":
        return do_native(fields)
    if kind == "ret":
        return do_ret(libc, fields)
    if kind == "threads":
        return do_threads(fields)
    if kind == "status":
        return do_status(fields)
    return "unknown-request"


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    with open(sys.argv[1]) as f:
        lines = [l.split() for l in f if l.strip() and not l.startswith("#")]
    for line in lines:
        kind, label, fields = line[0], line[1], line[2:]
        r, w = os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                result = run(libc, kind, fields)
            except Exception as e:  # reported, never hidden
                result = "error=" + type(e).__name__
            os.write(w, result.encode())
            os._exit(0)
        os.close(w)
        out = b""
        while True:
            chunk = os.read(r, 4096)
            if not chunk:
                break
            out += chunk
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            result = "signal=%d" % os.WTERMSIG(status)
        else:
            result = out.decode() or "no-result"
        print(label, result, flush=True)


main()
