/*
 * atrium guest agent: PID 1 of the micro-VM and, in a child, the host's agent.
 *
 * As PID 1 (started by the kernel from the boot initramfs) it mounts /dev, /proc and /sys, loads
 * the kernel modules listed in /atrium/boot.conf (Debian builds every virtio driver as a module),
 * mounts the image's root filesystem and chroots into it, then forks the agent and stays behind
 * only to reap orphans. When the agent dies, PID 1 says why on the console and powers off, so the
 * host sees QEMU exit with a message instead of waiting for an answer that never comes.
 *
 * The agent speaks length-prefixed frames over the virtio-serial port named "atrium.agent". The
 * frame layout mirrors src/guest-agent/protocol.ts; change both together and bump
 * PROTOCOL_VERSION. All integers are little-endian (x86-64 guests only).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
/* From <linux/random.h>, which musl's toolchain does not ship. */
#define RNDADDENTROPY _IOW('R', 0x03, int[2])
#define RNDRESEEDCRNG _IO('R', 0x07)
#include <sys/socket.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROTOCOL_VERSION 3
#define MAX_FRAME (1024 * 1024 + 64)
#define CHUNK (64 * 1024)
#define MAX_PROCS 64
#define MAX_WRITES 16
#define PORT_NAME "atrium.agent"
#define BOOT_CONF "/atrium/boot.conf"
#define CGROUP_ROOT "/sys/fs/cgroup"

enum {
  H_EXEC = 1, H_STDIN = 2, H_STDIN_CLOSE = 3, H_SIGNAL = 4, H_WRITE_OPEN = 5,
  H_WRITE_DATA = 6, H_WRITE_CLOSE = 7, H_READ = 8, H_POWEROFF = 9, H_RESUMED = 10,
  G_READY = 64, G_STDOUT = 65, G_STDERR = 66, G_EXIT = 67, G_ERROR = 68, G_OK = 69,
  G_FILE_DATA = 70, G_FILE_END = 71
};

static void console(const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fd = 2;
  if (n > 0) (void)!write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  if (fd != 2) close(fd);
}

/* Boot tracing ("trace" in boot.conf): stage marks in the kernel log, which stamps them with its
 * own clock, so a boot's time can be split between the kernel and each step of this init. */
static int tracing;

static void trace(const char *fmt, ...) {
  if (!tracing) return;
  char line[300] = "<3>atrium-trace: ";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + 17, sizeof line - 18, fmt, ap);
  va_end(ap);
  strcat(line, "\n");
  int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)!write(fd, line, strlen(line));
    close(fd);
  }
}

static void power_off(void) {
  sync();
  reboot(RB_POWER_OFF);
  for (;;) pause();
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ── PID 1: boot ─────────────────────────────────────────────────────────────────────────────── */

static void must(int ok, const char *what) {
  if (!ok) {
    console("atrium-init: %s failed: %s\n", what, strerror(errno));
    power_off();
  }
}

static void load_module(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    console("atrium-init: module %s: %s\n", path, strerror(errno));
    return;
  }
  /* EEXIST: built in or already loaded, fine. */
  if (syscall(SYS_finit_module, fd, "", 0) != 0 && errno != EEXIST)
    console("atrium-init: load %s: %s\n", path, strerror(errno));
  close(fd);
}

static int wait_for_path(const char *path, int timeout_ms) {
  int64_t end = now_ms() + timeout_ms;
  struct stat st;
  while (stat(path, &st) != 0) {
    if (now_ms() > end) return -1;
    usleep(2000);
  }
  return 0;
}

static void move_mount(const char *from, const char *to) {
  mkdir(to, 0755);
  if (mount(from, to, NULL, MS_MOVE, NULL) != 0) console("atrium-init: move %s: %s\n", from, strerror(errno));
}

static void mkdir_p(const char *path, mode_t mode) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(buf, mode);
    *p = '/';
  }
  mkdir(buf, mode);
}

static int set_addr(int fd, unsigned long request, const char *ifname, const char *ip) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname);
  struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
  sin->sin_family = AF_INET;
  inet_pton(AF_INET, ip, &sin->sin_addr);
  return ioctl(fd, request, &ifr);
}

static int link_up(int fd, const char *ifname) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) return -1;
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  return ioctl(fd, SIOCSIFFLAGS, &ifr);
}

/* "net IFNAME ADDRESS NETMASK GATEWAY DNS": QEMU user networking's fixed addresses. */
static void configure_net(const char *spec) {
  char ifname[32], addr[32], mask[32], gw[32], dns[32];
  if (sscanf(spec, "%31s %31s %31s %31s %31s", ifname, addr, mask, gw, dns) != 5) {
    console("atrium-init: bad net line: %s\n", spec);
    return;
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq probe;
  memset(&probe, 0, sizeof probe);
  snprintf(probe.ifr_name, IFNAMSIZ, "%s", ifname);
  int64_t end = now_ms() + 3000;
  while (ioctl(fd, SIOCGIFFLAGS, &probe) != 0 && now_ms() < end) usleep(2000);
  if (set_addr(fd, SIOCSIFADDR, ifname, addr) != 0 || set_addr(fd, SIOCSIFNETMASK, ifname, mask) != 0 || link_up(fd, ifname) != 0)
    console("atrium-init: configure %s: %s\n", ifname, strerror(errno));
  struct rtentry route;
  memset(&route, 0, sizeof route);
  struct sockaddr_in *dst = (struct sockaddr_in *)&route.rt_dst;
  struct sockaddr_in *gateway = (struct sockaddr_in *)&route.rt_gateway;
  struct sockaddr_in *genmask = (struct sockaddr_in *)&route.rt_genmask;
  dst->sin_family = gateway->sin_family = genmask->sin_family = AF_INET;
  inet_pton(AF_INET, gw, &gateway->sin_addr);
  route.rt_flags = RTF_UP | RTF_GATEWAY;
  if (ioctl(fd, SIOCADDRT, &route) != 0) console("atrium-init: default route: %s\n", strerror(errno));
  close(fd);
  int conf = open("/etc/resolv.conf", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (conf >= 0) {
    dprintf(conf, "nameserver %s\n", dns);
    close(conf);
  }
}

/* "volume TAG GUEST_PATH ro|rw": a host directory shared over virtio-9p. */
static void mount_volume(const char *spec) {
  char tag[64], path[400], mode[8];
  if (sscanf(spec, "%63s %399s %7s", tag, path, mode) != 3) {
    console("atrium-init: bad volume line: %s\n", spec);
    return;
  }
  mkdir_p(path, 0755);
  unsigned long flags = strcmp(mode, "ro") == 0 ? MS_RDONLY : 0;
  if (mount(tag, path, "9p", flags, "trans=virtio,version=9p2000.L,msize=262144,cache=none") != 0)
    console("atrium-init: mount volume %s at %s: %s\n", tag, path, strerror(errno));
}

static void boot(void) {
  mkdir("/dev", 0755);
  mkdir("/proc", 0555);
  mkdir("/sys", 0555);
  must(mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755") == 0 || errno == EBUSY, "mount /dev");
  must(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0, "mount /proc");
  must(mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0, "mount /sys");

  char root[128] = "", memroot[256] = "", fstype[32] = "ext4", line[512];
  static char after_root[32][512];
  int after_count = 0;
  FILE *conf = fopen(BOOT_CONF, "re");
  must(conf != NULL, "open " BOOT_CONF);
  while (fgets(line, sizeof line, conf)) {
    line[strcspn(line, "\n")] = 0;
    if (strcmp(line, "trace") == 0) {
      tracing = 1;
      trace("init started");
    } else if (strncmp(line, "module ", 7) == 0) {
      load_module(line + 7);
      trace("loaded %s", line + 7);
    }
    else if (strncmp(line, "root ", 5) == 0) snprintf(root, sizeof root, "%s", line + 5);
    else if (strncmp(line, "memroot ", 8) == 0)
      snprintf(memroot, sizeof memroot, "%s", line + 8);
    else if (strncmp(line, "fstype ", 7) == 0) snprintf(fstype, sizeof fstype, "%s", line + 7);
    else if (strncmp(line, "hostname ", 9) == 0) sethostname(line + 9, strlen(line + 9));
    else if ((strncmp(line, "net ", 4) == 0 || strncmp(line, "volume ", 7) == 0 || strncmp(line, "hosts ", 6) == 0) &&
             after_count < 32)
      snprintf(after_root[after_count++], 512, "%s", line);
    else if (strcmp(line, "probe") == 0) {
      /* The engine's probe boot: the kernel reached userspace under this accelerator. */
      console("atrium-probe-ok\n");
      power_off();
    }
  }
  fclose(conf);
  if (!root[0] && !memroot[0]) return; /* no root given: the initramfs is the root (probe boots) */

  const char *newroot = "/newroot";
  if (memroot[0]) {
    /* The image's tree came in the initramfs: bind it onto itself so it is a mount point the
     * switch below can move onto /. */
    newroot = memroot;
    must(mount(newroot, newroot, NULL, MS_BIND | MS_REC, NULL) == 0, "bind the memory root");
  } else {
    if (wait_for_path(root, 5000) != 0) {
      console("atrium-init: root device %s did not appear\n", root);
      power_off();
    }
    mkdir("/newroot", 0755);
    must(mount(root, "/newroot", fstype, 0, NULL) == 0, "mount root");
  }
  trace("root mounted");
  char target[600];
  snprintf(target, sizeof target, "%s/dev", newroot);
  move_mount("/dev", target);
  snprintf(target, sizeof target, "%s/proc", newroot);
  move_mount("/proc", target);
  snprintf(target, sizeof target, "%s/sys", newroot);
  move_mount("/sys", target);
  must(chdir(newroot) == 0, "chdir to the new root");
  /* MS_MOVE onto / then chroot: the switch_root dance, keeping the initramfs (it is small). */
  must(mount(".", "/", NULL, MS_MOVE, NULL) == 0, "move root");
  must(chroot(".") == 0, "chroot");
  must(chdir("/") == 0, "chdir /");
  mkdir("/tmp", 01777);
  mkdir("/dev/pts", 0755);
  mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=620");
  mkdir("/dev/shm", 01777);
  mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, NULL);
  /* Each command gets its own cgroup so a timeout can kill all it started (see exec_cgroup). */
  mount("cgroup2", CGROUP_ROOT, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
  /* Loopback is always up (programs expect it); it reaches nothing outside the guest. */
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    link_up(fd, "lo");
    close(fd);
  }
  for (int i = 0; i < after_count; i++) {
    if (strncmp(after_root[i], "net ", 4) == 0) configure_net(after_root[i] + 4);
    else if (strncmp(after_root[i], "hosts ", 6) == 0) {
      /* An allowed host name, pointed at the address its relay listens on. */
      int fd = open("/etc/hosts", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0) {
        dprintf(fd, "%s\n", after_root[i] + 6);
        close(fd);
      }
    } else mount_volume(after_root[i] + 7);
  }
}

static void agent_main(void);

static void set_oom_score_adj(const char *value) {
  int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  (void)!write(fd, value, strlen(value));
  close(fd);
}

static void init_main(void) {
  boot();
  /* A memory hog in a command must meet the OOM killer, not the agent: the agent (and this
   * init) are exempt; commands get the default score back before they exec. */
  set_oom_score_adj("-1000");
  pid_t agent = fork();
  if (agent == 0) {
    setsid();
    agent_main();
    _exit(0);
  }
  for (;;) {
    int status;
    pid_t pid = wait(&status);
    if (pid < 0 && errno == EINTR) continue;
    if (pid == agent || pid < 0) {
      if (pid == agent && WIFSIGNALED(status))
        console("atrium-init: guest agent crashed: killed by signal %d\n", WTERMSIG(status));
      else if (pid == agent && WEXITSTATUS(status) != 0)
        console("atrium-init: guest agent exited with status %d\n", WEXITSTATUS(status));
      else
        console("atrium-init: guest agent finished, powering off\n");
      power_off();
    }
  }
}

/* ── the agent ───────────────────────────────────────────────────────────────────────────────── */

static int port = -1;

struct proc {
  int used;
  uint32_t id;
  pid_t pid;
  char cgroup[64]; /* its cgroup's directory, "" when cgroup2 is not there */
  int in, out, err;
  int64_t deadline;
  int timed_out, exited, status, stdin_closing;
  char *pending; /* stdin bytes not yet written */
  size_t pending_len;
};
static struct proc procs[MAX_PROCS];

struct wfile {
  int used;
  uint32_t id;
  int fd, err;
};
static struct wfile wfiles[MAX_WRITES];

static void enforce_deadlines(void);

static void write_all(const uint8_t *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(port, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        /* The host is not reading (its consumer is slow, or it stopped): wait for it, but a
         * command's timeout still kills the command meanwhile. */
        struct pollfd p = {port, POLLOUT, 0};
        poll(&p, 1, 100);
        enforce_deadlines();
        continue;
      }
      _exit(3); /* the host is gone: PID 1 powers off */
    }
    data += n;
    len -= (size_t)n;
  }
}

static uint8_t out_buf[MAX_FRAME];

/* One frame: u32 length of the rest | u8 type | u32 id | body. */
static void send_frame(uint8_t type, uint32_t id, const void *body, size_t len) {
  uint32_t total = (uint32_t)(1 + 4 + len);
  memcpy(out_buf, &total, 4);
  out_buf[4] = type;
  memcpy(out_buf + 5, &id, 4);
  if (len) memcpy(out_buf + 9, body, len);
  write_all(out_buf, 9 + len);
}

static void send_error(uint32_t id, int err, const char *what) {
  char msg[600];
  int n = snprintf(msg + 8, sizeof msg - 8, "%s: %s", what, strerror(err));
  /* snprintf returns the untruncated length: a long path (up to a frame) must not be sent past
   * the buffer's end. */
  if (n > (int)sizeof msg - 9) n = (int)sizeof msg - 9;
  int32_t e = err;
  uint32_t l = (uint32_t)n;
  memcpy(msg, &e, 4);
  memcpy(msg + 4, &l, 4);
  send_frame(G_ERROR, id, msg, 8 + (size_t)n);
}

static void send_error_text(uint32_t id, int err, const char *text) {
  char msg[600];
  int n = snprintf(msg + 8, sizeof msg - 8, "%s", text);
  if (n > (int)sizeof msg - 9) n = (int)sizeof msg - 9;
  int32_t e = err;
  uint32_t l = (uint32_t)n;
  memcpy(msg, &e, 4);
  memcpy(msg + 4, &l, 4);
  send_frame(G_ERROR, id, msg, 8 + (size_t)n);
}

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/* A cursor over a frame body; a malformed frame sets bad instead of reading past the end. */
struct reader {
  const uint8_t *p, *end;
  int bad;
};

static uint32_t rd_u32(struct reader *r) {
  uint32_t v = 0;
  if (r->end - r->p < 4) { r->bad = 1; return 0; }
  memcpy(&v, r->p, 4);
  r->p += 4;
  return v;
}

static char *rd_str(struct reader *r) {
  uint32_t len = rd_u32(r);
  if (r->bad || (size_t)(r->end - r->p) < len) { r->bad = 1; return NULL; }
  char *s = malloc(len + 1);
  memcpy(s, r->p, len);
  s[len] = 0;
  r->p += len;
  return s;
}

static char **rd_strlist(struct reader *r) {
  uint32_t count = rd_u32(r);
  if (r->bad || count > 65536) { r->bad = 1; return NULL; }
  char **list = calloc(count + 1, sizeof *list);
  for (uint32_t i = 0; i < count && !r->bad; i++) list[i] = rd_str(r);
  return list;
}

static void free_list(char **list) {
  if (!list) return;
  for (char **p = list; *p; p++) free(*p);
  free(list);
}

static struct proc *find_proc(uint32_t id) {
  for (int i = 0; i < MAX_PROCS; i++)
    if (procs[i].used && procs[i].id == id) return &procs[i];
  return NULL;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static int write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A fresh cgroup for one command. A process group or a session is not enough to find all a
 * command started (`setsid sleep 600 &` leaves both); a cgroup is inherited by every descendant
 * and cgroup.kill kills them all at once. Empty when the guest has no cgroup2 (then only the
 * process group is killed). */
static uint64_t cgroup_seq;
static void exec_cgroup(char *out, size_t size) {
  out[0] = 0;
  char path[64];
  snprintf(path, sizeof path, CGROUP_ROOT "/atrium-exec-%llu", (unsigned long long)++cgroup_seq);
  if (mkdir(path, 0755) == 0) snprintf(out, size, "%s", path);
}

/* Cgroups whose commands are over; removed once their last process is gone. */
#define MAX_STALE_CGROUPS 256
static char stale_cgroups[MAX_STALE_CGROUPS][64];

static void retire_cgroup(const char *path) {
  if (!path[0] || rmdir(path) == 0) return;
  for (int i = 0; i < MAX_STALE_CGROUPS; i++)
    if (!stale_cgroups[i][0]) { snprintf(stale_cgroups[i], 64, "%s", path); return; }
}

static void sweep_cgroups(void) {
  for (int i = 0; i < MAX_STALE_CGROUPS; i++)
    if (stale_cgroups[i][0] && rmdir(stale_cgroups[i]) == 0) stale_cgroups[i][0] = 0;
}

/* Kills everything a command started: its cgroup when it has one, and its process group. */
static void kill_all(struct proc *p) {
  char path[96];
  if (p->cgroup[0]) {
    snprintf(path, sizeof path, "%s/cgroup.kill", p->cgroup);
    write_text(path, "1");
  }
  kill(-p->pid, SIGKILL);
}

static void do_exec(uint32_t id, struct reader *r) {
  uint32_t timeout_ms = rd_u32(r);
  uint32_t has_stdin = rd_u32(r);
  char **argv = rd_strlist(r);
  char **env = rd_strlist(r);
  char *cwd = rd_str(r);
  struct proc *slot = NULL;
  for (int i = 0; i < MAX_PROCS && !slot; i++)
    if (!procs[i].used) slot = &procs[i];
  int in[2] = {-1, -1}, out[2], err[2], status_pipe[2];
  if (r->bad || !argv || !argv[0]) {
    send_error(id, EINVAL, "exec: malformed request");
  } else if (!slot) {
    send_error(id, EAGAIN, "exec: too many running commands");
  } else if ((has_stdin && pipe2(in, O_CLOEXEC)) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
             pipe2(status_pipe, O_CLOEXEC)) {
    send_error(id, errno, "exec: pipe");
  } else {
    char cgroup[64];
    exec_cgroup(cgroup, sizeof cgroup);
    pid_t pid = fork();
    if (pid == 0) {
      if (cgroup[0]) {
        char procs_path[96];
        snprintf(procs_path, sizeof procs_path, "%s/cgroup.procs", cgroup);
        write_text(procs_path, "0");
      }
      setsid();
      int devnull = open("/dev/null", O_RDONLY);
      dup2(has_stdin ? in[0] : devnull, 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      set_oom_score_adj("0");
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, NULL);
      for (char **e = env; *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0) setenv("PATH", *e + 5, 1);
      int32_t code = 0;
      char which = 'x';
      if (cwd[0] && chdir(cwd) != 0) {
        code = errno;
        which = 'c';
      } else {
        execvpe(argv[0], argv, env);
        code = errno;
      }
      /* The exec failed: tell the agent why through the close-on-exec pipe. */
      (void)!write(status_pipe[1], &code, 4);
      (void)!write(status_pipe[1], &which, 1);
      _exit(127);
    }
    close(status_pipe[1]);
    int32_t code = 0;
    char which = 0;
    ssize_t n = read(status_pipe[0], &code, 4);
    if (n == 4) (void)!read(status_pipe[0], &which, 1);
    close(status_pipe[0]);
    if (has_stdin) close(in[0]);
    close(out[1]);
    close(err[1]);
    if (pid < 0 || n == 4) {
      int e = pid < 0 ? errno : code;
      if (pid > 0) waitpid(pid, NULL, 0);
      retire_cgroup(cgroup);
      if (has_stdin) close(in[1]);
      close(out[0]);
      close(err[0]);
      char what[300];
      snprintf(what, sizeof what, which == 'c' ? "exec: cwd %s" : "exec: %s", which == 'c' ? cwd : argv[0]);
      send_error(id, e, what);
    } else {
      memset(slot, 0, sizeof *slot);
      slot->used = 1;
      slot->id = id;
      slot->pid = pid;
      snprintf(slot->cgroup, sizeof slot->cgroup, "%s", cgroup);
      slot->in = has_stdin ? in[1] : -1;
      if (slot->in >= 0) set_nonblock(slot->in);
      slot->out = out[0];
      slot->err = err[0];
      set_nonblock(slot->out);
      set_nonblock(slot->err);
      slot->deadline = timeout_ms ? now_ms() + timeout_ms : 0;
    }
  }
  free_list(argv);
  free_list(env);
  free(cwd);
}

static void flush_stdin(struct proc *p) {
  while (p->in >= 0 && p->pending_len > 0) {
    ssize_t n = write(p->in, p->pending, p->pending_len);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) return;
      p->pending_len = 0; /* EPIPE: the command stopped reading */
      break;
    }
    memmove(p->pending, p->pending + n, p->pending_len - (size_t)n);
    p->pending_len -= (size_t)n;
  }
  if (p->in >= 0 && p->stdin_closing && p->pending_len == 0) {
    close(p->in);
    p->in = -1;
  }
}

static void drain(struct proc *p, int *fd, uint8_t type) {
  static uint8_t buf[CHUNK];
  while (*fd >= 0) {
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n > 0) {
      send_frame(type, p->id, buf, (size_t)n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    close(*fd);
    *fd = -1;
  }
}

/* A command is over when it exited; output still in its pipes is sent first. Descendants that
 * keep the pipes open (a daemon started in the background) do not hold the answer back. */
static void finish_if_done(struct proc *p) {
  if (!p->exited) return;
  drain(p, &p->out, G_STDOUT);
  drain(p, &p->err, G_STDERR);
  if (p->out >= 0) close(p->out);
  if (p->err >= 0) close(p->err);
  if (p->in >= 0) close(p->in);
  if (p->timed_out) kill_all(p);
  retire_cgroup(p->cgroup);
  int32_t code;
  uint32_t sig = 0;
  if (p->timed_out) code = 124;
  else if (WIFEXITED(p->status)) code = WEXITSTATUS(p->status);
  else {
    sig = (uint32_t)WTERMSIG(p->status);
    code = 128 + (int32_t)sig;
  }
  uint8_t body[9];
  memcpy(body, &code, 4);
  memcpy(body + 4, &sig, 4);
  body[8] = (uint8_t)p->timed_out;
  send_frame(G_EXIT, p->id, body, 9);
  free(p->pending);
  memset(p, 0, sizeof *p);
}

static struct wfile *find_wfile(uint32_t id) {
  for (int i = 0; i < MAX_WRITES; i++)
    if (wfiles[i].used && wfiles[i].id == id) return &wfiles[i];
  return NULL;
}

/* Only regular files are transferred: a FIFO blocks a reader or writer forever and a device
 * (/dev/zero) never ends, and this loop is the agent's only thread. O_NONBLOCK makes the open
 * itself return at once (a FIFO without a peer), fstat says what was opened. */
static int open_regular(uint32_t id, const char *path, int flags, mode_t mode) {
  char what[600];
  int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, mode);
  if (fd < 0 && errno == ENXIO) {
    snprintf(what, sizeof what, "%s: a FIFO or device without a reader; only regular files are transferred", path);
    send_error_text(id, EINVAL, what);
    return -1;
  }
  if (fd < 0) { send_error(id, errno, path); return -1; }
  struct stat st;
  if (fstat(fd, &st) != 0) { send_error(id, errno, path); close(fd); return -1; }
  if (!S_ISREG(st.st_mode)) {
    snprintf(what, sizeof what, "%s: %s; only regular files are transferred", path, file_kind(st.st_mode));
    send_error_text(id, EINVAL, what);
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

static void do_read_file(uint32_t id, struct reader *r) {
  uint32_t max_bytes = rd_u32(r);
  char *path = rd_str(r);
  if (r->bad) { send_error(id, EINVAL, "read: malformed request"); free(path); return; }
  int fd = open_regular(id, path, O_RDONLY, 0);
  if (fd >= 0) {
    /* The host takes at most max_bytes: stop there instead of streaming what it would drop (a
     * file that grows while it is read included). */
    char what[600];
    snprintf(what, sizeof what, "%s: larger than the host's limit of %u bytes (maxReadFileBytes)", path, max_bytes);
    struct stat st;
    static uint8_t buf[CHUNK];
    uint64_t sent = 0;
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > max_bytes) send_error_text(id, EFBIG, what);
    else for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) { send_error(id, errno, path); break; }
      if (n == 0) { send_frame(G_FILE_END, id, NULL, 0); break; }
      sent += (uint64_t)n;
      if (sent > max_bytes) { send_error_text(id, EFBIG, what); break; }
      send_frame(G_FILE_DATA, id, buf, (size_t)n);
    }
    close(fd);
  }
  free(path);
}

/* The machine was restored from a snapshot (or forked): every copy of one snapshot would otherwise
 * draw the same "random" bytes from the same CRNG state and read the same stale wall clock. The
 * host sends its time (u64 ms since the epoch) and fresh entropy: the clock is set, the bytes are
 * mixed into the input pool, and RNDRESEEDCRNG makes the CRNG take a new key from that pool at
 * once (not at its next scheduled reseed, up to a minute later), so the next read differs. */
static void do_resumed(uint32_t id, const uint8_t *body, size_t len) {
  if (len < 8 || len - 8 > 512) { send_error_text(id, EINVAL, "resumed: malformed request"); return; }
  uint64_t ms;
  memcpy(&ms, body, 8);
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  if (clock_settime(CLOCK_REALTIME, &ts) != 0) { send_error(id, errno, "resumed: set the clock"); return; }
  size_t n = len - 8;
  struct { int entropy_count; int buf_size; uint8_t buf[512]; } add;
  add.entropy_count = (int)(n * 8);
  add.buf_size = (int)n;
  memcpy(add.buf, body + 8, n);
  int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
  if (fd < 0) { send_error(id, errno, "resumed: open /dev/urandom"); return; }
  int err = 0;
  if (ioctl(fd, RNDADDENTROPY, &add) != 0) err = errno;
  else if (ioctl(fd, RNDRESEEDCRNG) != 0) err = errno;
  close(fd);
  if (err) send_error(id, err, "resumed: reseed the kernel's random generator");
  else send_frame(G_OK, id, NULL, 0);
}

static char write_paths[MAX_WRITES][256];

static void handle_frame(uint8_t type, uint32_t id, const uint8_t *body, size_t len) {
  struct reader r = {body, body + len, 0};
  struct proc *p;
  struct wfile *w;
  switch (type) {
  case H_EXEC:
    do_exec(id, &r);
    break;
  case H_STDIN:
    if ((p = find_proc(id)) && p->in >= 0) {
      p->pending = realloc(p->pending, p->pending_len + len);
      memcpy(p->pending + p->pending_len, body, len);
      p->pending_len += len;
      flush_stdin(p);
    }
    break;
  case H_STDIN_CLOSE:
    if ((p = find_proc(id))) {
      p->stdin_closing = 1;
      flush_stdin(p);
    }
    break;
  case H_SIGNAL:
    if ((p = find_proc(id))) {
      int sig = (int)rd_u32(&r);
      /* SIGKILL is what an abort sends: everything the command started goes with it. */
      if (sig == SIGKILL) kill_all(p);
      else kill(-p->pid, sig);
    }
    break;
  case H_WRITE_OPEN: {
    uint32_t mode = rd_u32(&r);
    char *path = rd_str(&r);
    w = NULL;
    for (int i = 0; i < MAX_WRITES && !w; i++)
      if (!wfiles[i].used) { w = &wfiles[i]; snprintf(write_paths[i], 256, "%s", path ? path : "?"); }
    if (!w) send_error(id, EAGAIN, "write: too many files open");
    else if (r.bad) send_error(id, EINVAL, "write: malformed request");
    else {
      int fd = open_regular(id, path, O_WRONLY | O_CREAT | O_TRUNC, mode & 07777);
      /* Refused: the error is sent; the host's data and close frames for this id are ignored. */
      if (fd >= 0) {
        w->used = 1;
        w->id = id;
        w->err = 0;
        w->fd = fd;
      }
    }
    free(path);
    break;
  }
  case H_WRITE_DATA:
    if ((w = find_wfile(id)) && !w->err) {
      size_t done = 0;
      while (done < len) {
        ssize_t n = write(w->fd, body + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { w->err = errno; break; }
        done += (size_t)n;
      }
    }
    break;
  case H_WRITE_CLOSE:
    if ((w = find_wfile(id))) {
      if (w->fd >= 0 && close(w->fd) != 0 && !w->err) w->err = errno;
      if (w->err) send_error(id, w->err, write_paths[w - wfiles]);
      else send_frame(G_OK, id, NULL, 0);
      memset(w, 0, sizeof *w);
    }
    break;
  case H_READ:
    do_read_file(id, &r);
    break;
  case H_RESUMED:
    do_resumed(id, body, len);
    break;
  case H_POWEROFF:
    send_frame(G_OK, id, NULL, 0);
    _exit(0);
  default:
    send_error(id, ENOSYS, "unknown frame type");
  }
}

static int open_port(void) {
  for (int tries = 0; tries < 2500; tries++) {
    DIR *dir = opendir("/sys/class/virtio-ports");
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
      if (e->d_name[0] == '.') continue;
      char path[300], name[64] = "";
      snprintf(path, sizeof path, "/sys/class/virtio-ports/%s/name", e->d_name);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n = read(fd, name, sizeof name - 1);
      close(fd);
      if (n > 0 && strncmp(name, PORT_NAME, strlen(PORT_NAME)) == 0) {
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        closedir(dir);
        if (wait_for_path(path, 2000) != 0) return -1;
        return open(path, O_RDWR | O_CLOEXEC);
      }
    }
    if (dir) closedir(dir);
    usleep(2000);
  }
  return -1;
}

static void enforce_deadlines(void) {
  int64_t now = now_ms();
  for (int i = 0; i < MAX_PROCS; i++) {
    struct proc *p = &procs[i];
    if (p->used && p->deadline && !p->timed_out && now >= p->deadline) {
      p->timed_out = 1;
      kill_all(p);
    }
  }
}

static void agent_main(void) {
  setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
  port = open_port();
  if (port < 0) {
    console("atrium-agent: virtio-serial port %s not found\n", PORT_NAME);
    _exit(2);
  }
  /* The host connects right after QEMU starts; until then the port reports a hang-up. */
  for (int i = 0; i < 5000; i++) {
    struct pollfd p = {port, POLLOUT, 0};
    if (poll(&p, 1, 0) == 1 && !(p.revents & POLLHUP)) break;
    usleep(2000);
  }
  signal(SIGPIPE, SIG_IGN);
  set_nonblock(port);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  uint32_t version = PROTOCOL_VERSION;
  trace("agent ready");
  send_frame(G_READY, 0, &version, 4);

  static uint8_t in_buf[MAX_FRAME * 2];
  size_t in_len = 0;
  for (;;) {
    struct pollfd fds[2 + MAX_PROCS * 3];
    struct proc *owner[2 + MAX_PROCS * 3];
    int nfds = 0;
    fds[nfds++] = (struct pollfd){port, POLLIN, 0};
    fds[nfds++] = (struct pollfd){sfd, POLLIN, 0};
    int64_t next_deadline = 0;
    for (int i = 0; i < MAX_PROCS; i++) {
      struct proc *p = &procs[i];
      if (!p->used) continue;
      if (p->out >= 0) { owner[nfds] = p; fds[nfds++] = (struct pollfd){p->out, POLLIN, 0}; }
      if (p->err >= 0) { owner[nfds] = p; fds[nfds++] = (struct pollfd){p->err, POLLIN, 0}; }
      if (p->in >= 0 && p->pending_len) { owner[nfds] = p; fds[nfds++] = (struct pollfd){p->in, POLLOUT, 0}; }
      if (p->deadline && !p->timed_out && (!next_deadline || p->deadline < next_deadline)) next_deadline = p->deadline;
    }
    int timeout = -1;
    if (next_deadline) {
      int64_t left = next_deadline - now_ms();
      timeout = left < 0 ? 0 : (int)left;
    }
    int ready = poll(fds, (nfds_t)nfds, timeout);
    if (ready < 0 && errno != EINTR) _exit(4);

    enforce_deadlines();
    if (ready <= 0) continue;

    for (int i = 2; i < nfds; i++) {
      if (!fds[i].revents) continue;
      struct proc *p = owner[i];
      if (fds[i].fd == p->out) drain(p, &p->out, G_STDOUT);
      else if (fds[i].fd == p->err) drain(p, &p->err, G_STDERR);
      else if (fds[i].fd == p->in) {
        if (fds[i].revents & (POLLERR | POLLHUP)) { p->pending_len = 0; close(p->in); p->in = -1; }
        else flush_stdin(p);
      }
    }
    if (fds[1].revents) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) > 0) {}
      int status;
      pid_t pid;
      sweep_cgroups();
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < MAX_PROCS; i++) {
          if (procs[i].used && procs[i].pid == pid) {
            procs[i].exited = 1;
            procs[i].status = status;
            finish_if_done(&procs[i]);
          }
        }
      }
    }
    if (fds[0].revents & POLLIN) {
      /* virtio-serial hands over at most a page per read: read until the port is empty (it is
       * non-blocking) before polling again, which halves the syscalls of a bulk copy. */
      for (;;) {
        ssize_t n = read(port, in_buf + in_len, sizeof in_buf - in_len);
        if (n == 0) _exit(0); /* the host closed the channel: it is gone, power off */
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n < 0) _exit(5);
        in_len += (size_t)n;
        size_t off = 0;
        while (in_len - off >= 4) {
          uint32_t len;
          memcpy(&len, in_buf + off, 4);
          if (len < 5 || len > MAX_FRAME) {
            console("atrium-agent: bad frame length %u\n", len);
            _exit(6);
          }
          if (in_len - off - 4 < len) break;
          uint8_t type = in_buf[off + 4];
          uint32_t id;
          memcpy(&id, in_buf + off + 5, 4);
          handle_frame(type, id, in_buf + off + 9, len - 5);
          off += 4 + len;
        }
        if (off) memmove(in_buf, in_buf + off, in_len - off);
        in_len -= off;
      }
    } else if (fds[0].revents & POLLHUP) {
      _exit(0);
    }
  }
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  if (getpid() == 1) init_main();
  else agent_main(); /* for a test outside a VM */
  return 0;
}
