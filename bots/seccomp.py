"""The system calls a sandboxed bot may make: a seccomp allow-list, compiled with libseccomp.

The policy is an allow-list in the spirit of Docker's default profile, narrower where a card bot has
no need: every call not named in :data:`ALLOWED` (or allowed with the argument checks of
:func:`_rules`) fails with ``EPERM``, so well-behaved Python keeps running and only the attempt fails.
Among the refused calls (:data:`REFUSED_NOTABLY`, listed in docs/bots.md):

* the kernel keyrings (``add_key``, ``keyctl``, ``request_key``): not namespaced, they would carry
  data from one match to the next and reach the organiser's keys;
* file locks (``flock``, and ``fcntl``'s record, open-file-description and lease commands): locks on
  the shared read-only ``/usr`` are a channel between bots; ``fcntl`` is allowed only for its
  other commands (descriptor flags, status flags, pipe size, seals...);
* ``inotify`` and ``fanotify`` (an open of a shared file is an event another bot could watch),
  ``mincore``, ``cachestat``, ``preadv2``/``pwritev2`` (page-cache probes), SysV IPC and POSIX
  message queues (the IPC namespace is private anyway), ``sync``/``syncfs``;
* debugging and other processes: ``ptrace``, ``process_vm_readv``/``writev``, ``kcmp``,
  ``pidfd_getfd``, ``perf_event_open``, ``bpf``, ``userfaultfd``, ``io_uring_*``;
* namespaces and mounts: ``mount``, ``umount2``, ``pivot_root``, ``chroot``, ``unshare``, ``setns``,
  the new mount API, and ``clone`` with any namespace flag;
* the kernel itself: ``kexec_*``, ``init_module``, ``finit_module``, ``delete_module``, ``reboot``,
  ``swapon``, ``syslog``, ``acct``, clocks, host and domain names, ``personality``;
* identity: ``setuid`` and its family (the bot is already uid 65534 with no capabilities).

``clone3`` fails with ``ENOSYS`` instead (as in Docker's profile), so that the C library falls back
to ``clone``, whose flags the filter can read.  A call of another architecture's ABI (``int 0x80``,
x32) fails with ``EPERM`` too.

:func:`program` compiles the policy into the classic BPF program the kernel takes (libseccomp's
``seccomp_export_bpf``, through the ``pyseccomp`` binding, or Debian's ``python3-seccomp``, which has
the same interface).  The runner (bots/_runner.py) installs it with ``prctl(PR_SET_SECCOMP)`` in both
sandboxes, after joining a fresh anonymous session keyring and before it reads the bot's file.
"""
from __future__ import annotations

import errno
import importlib
import tempfile
from functools import cache
from types import ModuleType


def _import_binding() -> ModuleType | None:
    """``pyseccomp``, else Debian's ``seccomp`` (the same interface), else None."""
    for name in ("pyseccomp", "seccomp"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


_binding = _import_binding()

INSTALL_HINT = "pip install pyseccomp (a binding to libseccomp2: apt-get install libseccomp2)"

ALLOWED = tuple("""
read write readv writev pread64 pwrite64 preadv pwritev lseek close close_range
open openat openat2 creat stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2
readlink readlinkat getdents getdents64 getcwd chdir fchdir mkdir mkdirat rmdir unlink unlinkat
rename renameat renameat2 link linkat symlink symlinkat chmod fchmod fchmodat chown fchown lchown fchownat
umask utime utimes utimensat futimesat truncate ftruncate fallocate fsync fdatasync sync_file_range
fadvise64 readahead dup dup2 dup3 pipe pipe2 mknod mknodat
getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr setxattr lsetxattr fsetxattr
removexattr lremovexattr fremovexattr
mmap munmap mprotect mremap madvise brk msync mlock mlock2 munlock mlockall munlockall membarrier
memfd_create remap_file_pages
select pselect6 poll ppoll epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2
eventfd eventfd2 signalfd signalfd4 timerfd_create timerfd_settime timerfd_gettime
rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait rt_sigsuspend rt_sigqueueinfo
rt_tgsigqueueinfo sigaltstack kill tkill tgkill pause alarm nanosleep clock_nanosleep clock_gettime
clock_getres gettimeofday time times getitimer setitimer timer_create timer_settime timer_gettime
timer_getoverrun timer_delete
futex futex_waitv set_robust_list get_robust_list set_tid_address rseq arch_prctl prctl
get_thread_area set_thread_area
fork vfork execve execveat exit exit_group wait4 waitid
getpid getppid gettid getuid geteuid getgid getegid getresuid getresgid getgroups getpgid getpgrp
getsid setsid setpgid
getrlimit setrlimit prlimit64 getrusage getpriority setpriority ioprio_get ioprio_set
sched_yield sched_getaffinity sched_setaffinity sched_getparam sched_setparam sched_getscheduler
sched_setscheduler sched_get_priority_max sched_get_priority_min sched_rr_get_interval sched_getattr
sched_setattr getcpu
uname sysinfo getrandom capget
socketpair connect accept accept4 bind listen getsockname getpeername sendto recvfrom sendmsg recvmsg
sendmmsg recvmmsg shutdown setsockopt getsockopt
ioctl sendfile splice tee vmsplice copy_file_range
io_setup io_destroy io_submit io_cancel io_getevents io_pgetevents
pidfd_open pidfd_send_signal
restart_syscall seccomp landlock_create_ruleset landlock_add_rule landlock_restrict_self
""".split())
"""System calls allowed whatever their arguments."""

FCNTL_ALLOWED = (0, 1, 2, 3, 4, 8, 9, 10, 11, 15, 16, 17, 1030, 1031, 1032, 1033, 1034, 1035, 1036,
                 1037, 1038)
"""``fcntl`` commands allowed: F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_SETOWN, F_GETOWN,
F_SETSIG, F_GETSIG, F_SETOWN_EX, F_GETOWN_EX, F_GETOWNER_UIDS, F_DUPFD_CLOEXEC, F_SETPIPE_SZ,
F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS and the read/write hints.  Refused: the record locks
(F_GETLK 5, F_SETLK 6, F_SETLKW 7), the open-file-description locks (F_OFD_GETLK 36, F_OFD_SETLK 37,
F_OFD_SETLKW 38), leases (F_SETLEASE 1024, F_GETLEASE 1025) and F_NOTIFY (1026)."""

SOCKET_FAMILIES = (1, 2, 10)
"""``socket`` families allowed: AF_UNIX, AF_INET, AF_INET6 (in the sandbox's empty network namespace)."""

CLONE_NAMESPACES = 0x7E020000
"""The ``clone`` flags that make new namespaces (CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER |
NEWPID | NEWNET): a ``clone`` with any of them is refused."""

REFUSED_NOTABLY = ("add_key", "keyctl", "request_key", "flock", "fcntl locks and leases", "ptrace",
                   "process_vm_readv", "process_vm_writev", "perf_event_open", "bpf", "userfaultfd",
                   "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
                   "clone with namespace flags", "kexec_load", "kexec_file_load", "init_module",
                   "finit_module", "delete_module",
                   "inotify_init", "fanotify_init", "mincore", "cachestat", "preadv2", "pwritev2",
                   "SysV IPC (shmget, msgget, semget, ...)", "mq_open", "io_uring_setup", "kcmp",
                   "pidfd_getfd", "setuid and setgid family", "personality", "sync", "syncfs")
"""What docs/bots.md names as refused (not the whole complement of :data:`ALLOWED`)."""


def unavailable() -> str | None:
    """Why the filter cannot be built here (None: it can)."""
    if _binding is None:
        return f"no libseccomp binding for Python: {INSTALL_HINT}"
    try:
        program()
    except (OSError, RuntimeError, ValueError) as e:
        return f"libseccomp cannot build the filter here ({e}): {INSTALL_HINT}"
    return None


def _resolvable(name: str) -> bool:
    assert _binding is not None
    try:
        return int(_binding.resolve_syscall(_binding.Arch.NATIVE, name)) >= 0
    except (ValueError, RuntimeError, OSError, TypeError):
        return False


@cache
def program() -> bytes:
    """The compiled BPF program of the policy for this machine's architecture (cached)."""
    if _binding is None:
        raise RuntimeError(f"no libseccomp binding for Python: {INSTALL_HINT}")
    sc = _binding
    f = sc.SyscallFilter(sc.ERRNO(errno.EPERM))
    f.set_attr(sc.Attr.ACT_BADARCH, sc.ERRNO(errno.EPERM))
    try:
        f.set_attr(sc.Attr.CTL_OPTIMIZE, 2)   # a binary tree of the calls, not one long list
    except (OSError, RuntimeError, ValueError):  # pragma: no cover - libseccomp before 2.5
        pass
    for name in ALLOWED:
        if _resolvable(name):   # a call this architecture lacks (open on arm64, say) is skipped
            f.add_rule(sc.ALLOW, name)
    for cmd in FCNTL_ALLOWED:
        f.add_rule(sc.ALLOW, "fcntl", sc.Arg(1, sc.EQ, cmd))
    for family in SOCKET_FAMILIES:
        f.add_rule(sc.ALLOW, "socket", sc.Arg(0, sc.EQ, family))
    f.add_rule(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_NAMESPACES, 0))
    if _resolvable("clone3"):
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        return out.read()




@cache
def confine_arg() -> str:
    """The runner's ``--confine=KEYCTL_NR:FILTER`` argument (bots/_runner.py): this architecture's
    ``keyctl`` system call number and the base64 of :func:`program`."""
    import base64
    assert _binding is not None
    nr = int(_binding.resolve_syscall(_binding.Arch.NATIVE, "keyctl"))
    return f"--confine={nr}:{base64.b64encode(program()).decode()}"


__all__ = ["ALLOWED", "CLONE_NAMESPACES", "FCNTL_ALLOWED", "REFUSED_NOTABLY", "SOCKET_FAMILIES",
           "confine_arg", "program", "unavailable"]
