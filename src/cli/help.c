/* Help in urfave/cli's layout, as runc prints it: one table entry per
 * command (NAME, USAGE, DESCRIPTION, OPTIONS), printed by main before the
 * command parses anything.  checkpoint and restore list runc 1.1's flags. */
#define _GNU_SOURCE
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "crt/cli.h"

typedef struct {
  const char *flags, *text;
} crt_help_opt;

typedef struct {
  const char *name, *summary;
  const char *usage;       /* after "crt NAME ", with its explanation */
  const char *description; /* first line indented by the printer */
  const crt_help_opt *opts;
} crt_help_cmd;

static const crt_help_opt checkpoint_opts[] = {
    {"--image-path value", "path for saving criu image files"},
    {"--work-path value", "path for saving work files and logs"},
    {"--parent-path value", "path for previous criu image files in pre-dump"},
    {"--leave-running", "leave the process running after checkpointing"},
    {"--tcp-established", "allow open tcp connections"},
    {"--ext-unix-sk", "allow external unix sockets"},
    {"--shell-job", "allow shell jobs"},
    {"--lazy-pages", "use userfaultfd to lazily restore memory pages"},
    {"--status-fd value", "criu writes \\0 to this FD once lazy-pages is ready (default: -1)"},
    {"--page-server value", "ADDRESS:PORT of the page server"},
    {"--file-locks", "handle file locks, for safety"},
    {"--pre-dump", "dump container's memory information only, leave the container running after this"},
    {"--manage-cgroups-mode value", "cgroups mode: 'soft' (default), 'full' and 'strict'"},
    {"--empty-ns value", "create a namespace, but don't restore its properties"},
    {"--auto-dedup", "enable auto deduplication of memory images"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt create_opts[] = {
    {"--bundle value, -b value", "path to the root of the bundle directory, defaults to the current directory"},
    {"--console-socket value", "path to an AF_UNIX socket which will receive a file descriptor referencing the master end of the console's pseudoterminal"},
    {"--pidfd-socket value", "path to an AF_UNIX socket which will receive a file descriptor referencing the init process"},
    {"--pid-file value", "specify the file to write the process id to"},
    {"--no-pivot", "do not use pivot root to jail process inside rootfs.  This should be used whenever the rootfs is on top of a ramdisk"},
    {"--no-new-keyring", "do not create a new session keyring for the container.  This will cause the container to inherit the calling processes session key"},
    {"--preserve-fds value", "Pass N additional file descriptors to the container (stdio + $LISTEN_FDS + N in total) (default: 0)"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt delete_opts[] = {
    {"--force, -f", "Forcibly deletes the container if it is still running (uses SIGKILL)"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt events_opts[] = {
    {"--interval value", "set the stats collection interval (default: 5s)"},
    {"--stats", "display the container's stats then exit"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt exec_opts[] = {
    {"--console-socket value", "path to an AF_UNIX socket which will receive a file descriptor referencing the master end of the console's pseudoterminal"},
    {"--pidfd-socket value", "path to an AF_UNIX socket which will receive a file descriptor referencing the exec process"},
    {"--cwd value", "current working directory in the container"},
    {"--env value, -e value", "set environment variables"},
    {"--tty, -t", "allocate a pseudo-TTY"},
    {"--user value, -u value", "UID (format: <uid>[:<gid>])"},
    {"--additional-gids value, -g value", "additional gids"},
    {"--process value, -p value", "path to the process.json"},
    {"--detach, -d", "detach from the container's process"},
    {"--pid-file value", "specify the file to write the process id to"},
    {"--process-label value", "set the asm process label for the process commonly used with selinux"},
    {"--apparmor value", "set the apparmor profile for the process"},
    {"--no-new-privs", "set the no new privileges value for the process"},
    {"--cap value, -c value", "add a capability to the bounding set for the process"},
    {"--preserve-fds value", "Pass N additional file descriptors to the container (stdio + $LISTEN_FDS + N in total) (default: 0)"},
    {"--cgroup value", "run the process in an (existing) sub-cgroup(s). Format is [<controller>:]<cgroup>."},
    {"--ignore-paused", "allow exec in a paused container"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt kill_opts[] = {
    {"--all, -a", "send the specified signal to all processes inside the container"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt list_opts[] = {
    {"--format value, -f value", "select one of: table or json (default: \"table\")"},
    {"--quiet, -q", "display only container IDs"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt pause_opts[] = {
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt ps_opts[] = {
    {"--format value, -f value", "select one of: table or json (default: \"table\")"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt restore_opts[] = {
    {"--console-socket value", "path to an AF_UNIX socket which will receive a file descriptor referencing the master end of the console's pseudoterminal"},
    {"--image-path value", "path to criu image files for restoring"},
    {"--work-path value", "path for saving work files and logs"},
    {"--tcp-established", "allow open tcp connections"},
    {"--ext-unix-sk", "allow external unix sockets"},
    {"--shell-job", "allow shell jobs"},
    {"--file-locks", "handle file locks, for safety"},
    {"--manage-cgroups-mode value", "cgroups mode: 'soft' (default), 'full' and 'strict'"},
    {"--bundle value, -b value", "path to the root of the bundle directory"},
    {"--detach, -d", "detach from the container's process"},
    {"--pid-file value", "specify the file to write the process id to"},
    {"--no-subreaper", "disable the use of the subreaper used to reap reparented processes"},
    {"--no-pivot", "do not use pivot root to jail process inside rootfs.  This should be used whenever the rootfs is on top of a ramdisk"},
    {"--empty-ns value", "create a namespace, but don't restore its properties"},
    {"--auto-dedup", "enable auto deduplication of memory images"},
    {"--lazy-pages", "use userfaultfd to lazily restore memory pages"},
    {"--lsm-profile value", "Specify an LSM profile to be used during restore in the form of TYPE:NAME."},
    {"--lsm-mount-context value", "Specify an LSM mount context to be used during restore."},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt resume_opts[] = {
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt run_opts[] = {
    {"--bundle value, -b value", "path to the root of the bundle directory, defaults to the current directory"},
    {"--console-socket value", "path to an AF_UNIX socket which will receive a file descriptor referencing the master end of the console's pseudoterminal"},
    {"--pidfd-socket value", "path to an AF_UNIX socket which will receive a file descriptor referencing the init process"},
    {"--detach, -d", "detach from the container's process"},
    {"--keep", "do not delete the container after it exits"},
    {"--pid-file value", "specify the file to write the process id to"},
    {"--no-subreaper", "disable the use of the subreaper used to reap reparented processes"},
    {"--no-pivot", "do not use pivot root to jail process inside rootfs.  This should be used whenever the rootfs is on top of a ramdisk"},
    {"--no-new-keyring", "do not create a new session keyring for the container.  This will cause the container to inherit the calling processes session key"},
    {"--preserve-fds value", "Pass N additional file descriptors to the container (stdio + $LISTEN_FDS + N in total) (default: 0)"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt spec_opts[] = {
    {"--bundle value, -b value", "path to the root of the bundle directory"},
    {"--rootless", "generate a configuration for a rootless container"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt start_opts[] = {
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt state_opts[] = {
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt update_opts[] = {
    {"--resources value, -r value", "path to the file containing the resources to update or '-' to read from the standard input"},
    {"--blkio-weight value", "Specifies per cgroup weight, range is from 10 to 1000 (default: 0)"},
    {"--cpu-period value", "CPU CFS period to be used for hardcapping (in usecs). 0 to use system default"},
    {"--cpu-quota value", "CPU CFS hardcap limit (in usecs). Allowed cpu time in a given period"},
    {"--cpu-burst value", "CPU CFS hardcap burst limit (in usecs). Allowed accumulated cpu time additionally for burst a given period"},
    {"--cpu-share value", "CPU shares (relative weight vs. other containers)"},
    {"--cpu-rt-period value", "CPU realtime period to be used for hardcapping (in usecs). 0 to use system default"},
    {"--cpu-rt-runtime value", "CPU realtime hardcap limit (in usecs). Allowed cpu time in a given period"},
    {"--cpuset-cpus value", "CPU(s) to use"},
    {"--cpuset-mems value", "Memory node(s) to use"},
    {"--kernel-memory value", "(obsoleted; do not use)"},
    {"--kernel-memory-tcp value", "(obsoleted; do not use)"},
    {"--memory value", "Memory limit (in bytes)"},
    {"--cpu-idle value", "set cgroup SCHED_IDLE or not, 0: default behavior, 1: SCHED_IDLE"},
    {"--memory-reservation value", "Memory reservation or soft_limit (in bytes)"},
    {"--memory-swap value", "Total memory usage (memory + swap); set '-1' to enable unlimited swap"},
    {"--pids-limit value", "Maximum number of pids allowed in the container (default: 0)"},
    {"--l3-cache-schema value", "The string of Intel RDT/CAT L3 cache schema (not supported: reports so)"},
    {"--mem-bw-schema value", "The string of Intel RDT/MBA memory bandwidth schema (not supported: reports so)"},
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_opt features_opts[] = {
    {"--help, -h", "show help"},
    {NULL, NULL}};

static const crt_help_cmd commands[] = {
    {"checkpoint", "checkpoint a running container",
     "[command options] <container-id>\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container to be\n"
     "checkpointed.",
     "The checkpoint command saves the state of the container instance.",
     checkpoint_opts},
    {"create", "create a container",
     "[command options] <container-id>\n"
     "\n"
     "Where \"<container-id>\" is your name for the instance of the container that you\n"
     "are starting. The name you provide for the container instance must be unique on\n"
     "your host.",
     "The create command creates an instance of a container for a bundle. The bundle\n"
     "is a directory with a specification file named \"config.json\" and a root\n"
     "filesystem.\n"
     "\n"
     "The specification file includes an args parameter. The args parameter is used\n"
     "to specify command(s) that get run when the container is started. To change the\n"
     "command(s) that get executed on start, edit the args parameter of the spec. See\n"
     "\"crt spec --help\" for more explanation.",
     create_opts},
    {"delete", "delete any resources held by the container often used with detached container",
     "[command options] <container-id>\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container.\n"
     "\n"
     "EXAMPLE:\n"
     "For example, if the container id is \"ubuntu01\" and crt list currently shows the\n"
     "status of \"ubuntu01\" as \"stopped\" the following will delete resources held for\n"
     "\"ubuntu01\" removing \"ubuntu01\" from the crt list of containers:\n"
     "\n"
     "       # crt delete ubuntu01",
     "The delete command removes the container's state directory, cgroup and\n"
     "leftover processes.  A stopped container is deleted as it is, and a created\n"
     "one's waiting init is killed first (as runc and crun do); with --force, a\n"
     "running or paused one is killed first (SIGKILL).",
     delete_opts},
    {"events", "display container events such as OOM notifications, cpu, memory, and IO usage statistics",
     "[command options] <container-id>\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container.",
     "The events command displays information about the container. By default the\n"
     "information is displayed once every 5 seconds.",
     events_opts},
    {"exec", "execute new process inside the container",
     "[command options] <container-id> <command> [command options]  || -p process.json <container-id>\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container and\n"
     "\"<command>\" is the command to be executed in the container.\n"
     "\"<command>\" can't be empty unless a \"-p\" flag provided.\n"
     "\n"
     "EXAMPLE:\n"
     "For example, if the container is configured to run the linux ps command the\n"
     "following will output a list of processes running in the container:\n"
     "\n"
     "       # crt exec <container-id> ps",
     "The exec command runs a new process in the namespaces, cgroup and security\n"
     "context of a running container, as process.json or the arguments describe it.",
     exec_opts},
    {"kill", "kill sends the specified signal (default: SIGTERM) to the container's init process",
     "[command options] <container-id> [signal]\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container and\n"
     "\"[signal]\" is the signal to be sent to the init process.\n"
     "\n"
     "EXAMPLE:\n"
     "For example, if the container id is \"ubuntu01\" the following will send a \"KILL\"\n"
     "signal to the init process of the \"ubuntu01\" container:\n"
     "\n"
     "       # crt kill ubuntu01 KILL",
     "The kill command sends a signal, by name (KILL, SIGKILL) or number (0 checks\n"
     "that the init exists), to the container's init process, or with --all to\n"
     "every process in the container.",
     kill_opts},
    {"list", "lists containers started by crt with the given root",
     "[command options] \n"
     "\n"
     "Where the given root is specified via the global option \"--root\"\n"
     "(default: \"/run/crt\").\n"
     "\n"
     "EXAMPLE 1:\n"
     "To list containers created via the default \"--root\":\n"
     "       # crt list\n"
     "\n"
     "EXAMPLE 2:\n"
     "To list containers created using a non-default value for \"--root\":\n"
     "       # crt --root value list",
     "The list command shows the containers under the state root, as a table or\n"
     "as JSON.",
     list_opts},
    {"pause", "pause suspends all processes inside the container",
     "<container-id>\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container to be\n"
     "paused. ",
     "The pause command suspends all processes in the instance of the container.\n"
     "\n"
     "Use crt list to identify instances of containers and their current status.",
     pause_opts},
    {"ps", "ps displays the processes running inside a container",
     "[command options] <container-id> [ps options]",
     "The ps command lists the processes in the container's cgroup; [ps options]\n"
     "are passed to ps(1) (table format only).",
     ps_opts},
    {"restore", "restore a container from a previous checkpoint",
     "[command options] <container-id>\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container to be\n"
     "restored.",
     "Restores the saved state of the container instance that was previously saved\n"
     "using the crt checkpoint command.",
     restore_opts},
    {"resume", "resumes all processes that have been previously paused",
     "<container-id>\n"
     "\n"
     "Where \"<container-id>\" is the name for the instance of the container to be\n"
     "resumed.",
     "The resume command resumes all processes in the instance of the container.\n"
     "\n"
     "Use crt list to identify instances of containers and their current status.",
     resume_opts},
    {"run", "create and run a container",
     "[command options] <container-id>\n"
     "\n"
     "Where \"<container-id>\" is your name for the instance of the container that you\n"
     "are starting. The name you provide for the container instance must be unique on\n"
     "your host.",
     "The run command creates an instance of a container for a bundle. The bundle\n"
     "is a directory with a specification file named \"config.json\" and a root\n"
     "filesystem.\n"
     "\n"
     "The specification file includes an args parameter. The args parameter is used\n"
     "to specify command(s) that get run when the container is started. To change the\n"
     "command(s) that get executed on start, edit the args parameter of the spec. See\n"
     "\"crt spec --help\" for more explanation.",
     run_opts},
    {"spec", "create a new specification file",
     "[command options] [arguments...]",
     "The spec command creates the new specification file named \"config.json\" for\n"
     "the bundle.\n"
     "\n"
     "The spec generated is just a starter file. Editing of the spec is required to\n"
     "achieve desired results. For example, the newly generated spec includes an args\n"
     "parameter that is initially set to call the \"sh\" command when the container is\n"
     "started. Calling \"sh\" may work for an ubuntu container or busybox, but will not\n"
     "work for containers that do not include the \"sh\" program.\n"
     "\n"
     "EXAMPLE:\n"
     "  To run docker's hello-world container one needs to set the args parameter\n"
     "in the spec to call hello. This can be done using the sed command or a text\n"
     "editor. The following commands create a bundle for hello-world, change the\n"
     "default args parameter in the spec from \"sh\" to \"/hello\", then run the hello\n"
     "command in a new hello-world container named container1:\n"
     "\n"
     "    mkdir hello\n"
     "    cd hello\n"
     "    docker pull hello-world\n"
     "    docker export $(docker create hello-world) > hello-world.tar\n"
     "    mkdir rootfs\n"
     "    tar -C rootfs -xf hello-world.tar\n"
     "    crt spec\n"
     "    sed -i 's;\"sh\";\"/hello\";' config.json\n"
     "    crt run container1\n"
     "\n"
     "In the run command above, \"container1\" is the name for the instance of the\n"
     "container that you are starting. The name you provide for the container instance\n"
     "must be unique on your host.\n"
     "\n"
     "An alternative for generating a customized spec config is to use \"oci-runtime-tool\", the\n"
     "sub-command \"oci-runtime-tool generate\" has lots of options that can be used to do any\n"
     "customizations as you want, see runtime-tools (https://github.com/opencontainers/runtime-tools)\n"
     "to get more information.\n"
     "\n"
     "When starting a container through crt, crt needs root privilege. If not\n"
     "already running as root, you can use sudo to give crt root privilege. For\n"
     "example: \"sudo crt start container1\" will give crt root privilege to start the\n"
     "container on your host.\n"
     "\n"
     "Alternatively, you can start a rootless container, which has the ability to run\n"
     "without root privileges. For this to work, the specification file needs to be\n"
     "adjusted accordingly. You can pass the parameter --rootless to this command to\n"
     "generate a proper rootless spec file.\n"
     "\n"
     "Note that --rootless is not needed when you execute crt as the root in a user namespace\n"
     "created by an unprivileged user.",
     spec_opts},
    {"start", "executes the user defined process in a created container",
     "<container-id>\n"
     "\n"
     "Where \"<container-id>\" is your name for the instance of the container that you\n"
     "are starting. The name you provide for the container instance must be unique on\n"
     "your host.",
     "The start command executes the user defined process in a created container.",
     start_opts},
    {"state", "output the state of a container",
     "<container-id>\n"
     "\n"
     "Where \"<container-id>\" is your name for the instance of the container.",
     "The state command outputs current state information for the\n"
     "instance of a container.",
     state_opts},
    {"update", "update container resource constraints",
     "[command options] <container-id>",
     "The update command changes the resource limits of a running container.\n"
     "\n"
     "The accepted format of --resources is as follows (unchanged values can be omitted):\n"
     "\n"
     "{\n"
     "  \"memory\": {\n"
     "    \"limit\": 0,\n"
     "    \"reservation\": 0,\n"
     "    \"swap\": 0\n"
     "  },\n"
     "  \"cpu\": {\n"
     "    \"shares\": 0,\n"
     "    \"quota\": 0,\n"
     "    \"period\": 0,\n"
     "    \"realtimeRuntime\": 0,\n"
     "    \"realtimePeriod\": 0,\n"
     "    \"cpus\": \"\",\n"
     "    \"mems\": \"\"\n"
     "  },\n"
     "  \"blockIO\": {\n"
     "    \"weight\": 0\n"
     "  }\n"
     "}\n"
     "\n"
     "Note: if data is to be read from a file or the standard input, all\n"
     "other options are ignored.",
     update_opts},
    {"features", "show the enabled features",
     "[arguments...]",
     "Show the enabled features.\n"
     "   The result is parsable as a JSON.\n"
     "   See https://pkg.go.dev/github.com/opencontainers/runc/types/features for the type definition.\n"
     "   The types are experimental and subject to change.",
     features_opts},
};

static const crt_help_opt global_opts[] = {
    {"--debug", "enable debug logging (each stage of create, start and exec with the time it took)"},
    {"--log value", "set the log file to write crt logs to (default is '/dev/stderr')"},
    {"--log-format value", "set the log format ('text' (default), or 'json') (default: \"text\")"},
    {"--root value", "root directory for storage of container state (this should be located in tmpfs) (default: \"/run/crt\")"},
    {"--criu value", "path to the criu binary used for checkpoint and restore (default: \"criu\")"},
    {"--systemd-cgroup", "enable systemd cgroup support, expects cgroupsPath to be of form \"slice:prefix:name\" for e.g. \"system.slice:crt:434234\""},
    {"--rootless value", "ignore cgroup permission errors ('true', 'false', or 'auto') (default: \"auto\")"},
    {"--help, -h", "show help"},
    {"--version, -v", "print the version"},
    {NULL, NULL}};

static const char main_description[] =
    "crt is a command line client for running applications packaged according to\n"
    "the Open Container Initiative (OCI) format and is a compliant implementation of the\n"
    "Open Container Initiative specification, a drop-in replacement for runc.\n"
    "\n"
    "Containers are configured using bundles. A bundle for a container is a directory\n"
    "that includes a specification file named \"config.json\" and a root filesystem.\n"
    "The root filesystem contains the contents of the container.\n"
    "\n"
    "To start a new instance of a container:\n"
    "\n"
    "    # crt run [ -b bundle ] <container-id>\n"
    "\n"
    "Where \"<container-id>\" is your name for the instance of the container that you\n"
    "are starting. The name you provide for the container instance must be unique on\n"
    "your host. Providing the bundle directory using \"-b\" is optional. The default\n"
    "value for \"bundle\" is the current directory.\n";

void crt_version_print(FILE *f, bool with_name) {
  const struct scmp_version *v = seccomp_version();
  fprintf(f, "%s%s\ncommit: %s\nspec: 1.3.0\nlibseccomp: %u.%u.%u\n", with_name ? "crt version " : "", CRT_VERSION,
          CRT_COMMIT, v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
}

/* The name crt was run by: urfave/cli prints its app name, and a crt
 * installed as "runc" (a drop-in) then reads as runc's own help. */
static const char *prog(void) {
  const char *a0 = crt_g.argv0 && crt_g.argv0[0] ? crt_g.argv0[0] : "";
  const char *b = strrchr(a0, '/');
  b = b ? b + 1 : a0;
  return *b ? b : "crt";
}

static const crt_help_cmd *find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

/* urfave's flag column: as wide as the longest flag, plus two spaces. */
static void print_opts(FILE *f, const crt_help_opt *o) {
  int w = 0;
  for (const crt_help_opt *p = o; p->flags; p++)
    if ((int)strlen(p->flags) > w) w = (int)strlen(p->flags);
  for (; o->flags; o++) fprintf(f, "   %-*s  %s\n", w, o->flags, o->text);
}

int crt_help_command(FILE *f, const char *name) {
  const crt_help_cmd *c = find(name);
  if (!c) return -1;
  fprintf(f, "NAME:\n   %s %s - %s\n\nUSAGE:\n   %s %s %s\n", prog(), c->name, c->summary, prog(), c->name, c->usage);
  if (c->description) fprintf(f, "\nDESCRIPTION:\n   %s\n", c->description);
  fprintf(f, "\nOPTIONS:\n");
  print_opts(f, c->opts);
  return 0;
}

void crt_help_main(FILE *f) {
  fprintf(f, "NAME:\n   %s - Open Container Initiative runtime\n\n%s\n", prog(), main_description);
  fprintf(f, "USAGE:\n   %s [global options] command [command options] [arguments...]\n\nVERSION:\n   ", prog());
  crt_version_print(f, false);
  fprintf(f, "\nCOMMANDS:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "   %-10s  %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "   %-10s  %s\n\nGLOBAL OPTIONS:\n", "help, h", "Shows a list of commands or help for one command");
  print_opts(f, global_opts);
}

/* -h/--help among a command's arguments, before "--".  For exec and ps what
 * follows the container id is the command and its options, so the search
 * stops at the first operand there. */
bool crt_help_requested(int argc, char **argv) {
  bool stop_at_operand = strcmp(argv[0], "exec") == 0 || strcmp(argv[0], "ps") == 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return false;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
    if (stop_at_operand && argv[i][0] != '-') return false;
  }
  return false;
}
