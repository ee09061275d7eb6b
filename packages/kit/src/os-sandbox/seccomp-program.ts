/**
 * The seccomp filter a sandboxed process runs under (bubblewrap loads it with `--seccomp FD`):
 * a classic BPF program, built here because the usual compiler (libseccomp) is a C library.
 * It is a deny list, the shape Docker's and bubblewrap-based sandboxes use: the runtime inside
 * (Node, its worker, the interpreter) needs ordinary system calls, and what is refused is what
 * only an attacker wants: the kernel's rarely used attack surface (keys, BPF, perf, io_uring,
 * user faults), namespaces and mounts, tracing other processes, new processes (threads only),
 * and every socket family but Unix sockets (the sandbox already has no network; this keeps
 * even its loopback closed).

 * x86-64 only; any other architecture, and the x32 ABI, end the process.
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;

const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** Low 32 bits of the first argument (little-endian). */
const OFFSET_ARG0 = 16;

const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;
const AF_UNIX = 1;

const SYS_SOCKET = 41;
const SYS_CLONE = 56;
const SYS_FORK = 57;
const SYS_VFORK = 58;
/** A thread shares its process: threads are how Node and its workers run, processes are not allowed. */
const CLONE_THREAD = 0x00010000;
const SYS_CLONE3 = 435;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
const CLONE_NAMESPACE_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

/** x86-64 system call numbers refused with EPERM. */
export const DENIED_SYSCALLS: Readonly<Record<string, number>> = Object.freeze({
  ptrace: 101,
  syslog: 103,
  personality: 135,
  mknod: 133,
  vhangup: 153,
  pivot_root: 155,
  adjtimex: 159,
  chroot: 161,
  acct: 163,
  settimeofday: 164,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  sethostname: 170,
  setdomainname: 171,
  iopl: 172,
  ioperm: 173,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  lookup_dcookie: 212,
  clock_settime: 227,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  mknodat: 259,
  unshare: 272,
  perf_event_open: 298,
  fanotify_init: 300,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  clock_adjtime: 305,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  pidfd_getfd: 438,
  mount_setattr: 442,
});

type Instruction = [code: number, jt: number, jf: number, k: number];

/** The filter as bytes: `struct sock_filter` records, as `--seccomp` reads them. */
export function seccompProgram(): Buffer {
  const program: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARCH],
    [BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64],
    [BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS],
    [BPF_LD_W_ABS, 0, 0, OFFSET_NR],
    [BPF_JGE_K, 0, 1, X32_SYSCALL_BIT],
    [BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS],
  ];
  for (const nr of Object.values(DENIED_SYSCALLS)) {
    program.push([BPF_JEQ_K, 0, 1, nr], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  }
  // No new processes: the sandbox is one process, so its limits (RLIMIT_DATA, RLIMIT_CPU) bound
  // all of it, whatever code inside it manages to switch off Node's permission model.
  program.push([BPF_JEQ_K, 0, 1, SYS_FORK], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  program.push([BPF_JEQ_K, 0, 1, SYS_VFORK], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  // glibc falls back to clone() when clone3() is missing, and clone's flags can be inspected:
  // threads (CLONE_THREAD) are allowed, new processes and namespaces are not.
  program.push([BPF_JEQ_K, 0, 1, SYS_CLONE3], [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS]);
  program.push(
    [BPF_JEQ_K, 0, 5, SYS_CLONE],
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARG0],
    [BPF_JSET_K, 2, 0, CLONE_NAMESPACE_FLAGS],
    [BPF_JSET_K, 0, 1, CLONE_THREAD],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM],
  );

  program.push(
    [BPF_JEQ_K, 0, 4, SYS_SOCKET],
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARG0],
    [BPF_JEQ_K, 0, 1, AF_UNIX],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EAFNOSUPPORT],
  );
  program.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);

  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jt, index * 8 + 2);
    bytes.writeUInt8(jf, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return bytes;
}
