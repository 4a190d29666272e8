// A real single-node Slurm cluster for tests: Debian's slurm-wlm daemons (slurmctld, slurmd)
// and munge, each started in the foreground as a child of the test with every file it uses in
// one temporary directory: slurm.conf, munge key and socket, state, spool, logs and pid files.
//
// Nothing is written under /etc/slurm (or /etc/slurm-llnl): /etc/slurm/slurm.conf is platform
// evidence for the sidecar, so its presence would turn every other test on the machine into a
// cluster test. Every Slurm command and daemon is pointed at the private configuration with
// SLURM_CONF (daemons: -f), and munge with --socket/--key-file/... plus AuthInfo=socket=.
//
// Stop: jobs are cancelled, then slurmd, slurmctld and munged are stopped by the PIDs this
// module spawned them with (SIGTERM, then SIGKILL after a bound), also when start-up failed.
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { delay } from '../../helpers/wait';

/** Executables this module needs, with the Debian package that ships each. */
const REQUIRED: ReadonlyArray<[string, string]> = [
  ['/usr/sbin/munged', 'munge'],
  ['/usr/sbin/slurmctld', 'slurmctld'],
  ['/usr/sbin/slurmd', 'slurmd'],
  ['/usr/bin/sinfo', 'slurm-client'],
  ['/usr/bin/squeue', 'slurm-client'],
  ['/usr/bin/srun', 'slurm-client'],
  ['/usr/bin/salloc', 'slurm-client'],
  ['/usr/bin/sbatch', 'slurm-client'],
  ['/usr/bin/scancel', 'slurm-client'],
  ['/usr/bin/scontrol', 'slurm-client']
];

export const SLURM_APT_PACKAGES = [
  'slurmctld',
  'slurmd',
  'slurm-client',
  'munge'
] as const;

/** The PATH the daemons and the Slurm commands run with. */
const SYSTEM_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

export class SlurmNotInstalled extends Error {
  constructor(missing: ReadonlyArray<[string, string]>) {
    const packages = [...new Set(missing.map(([, p]) => p))];
    super(
      `Slurm is not installed on this machine: missing ${missing.map(([f]) => f).join(', ')} ` +
        `(Debian package${packages.length > 1 ? 's' : ''} ${packages.join(', ')}). ` +
        `Install with \`apt-get install -y --no-install-recommends ${SLURM_APT_PACKAGES.join(' ')}\` ` +
        "(run .ci/run's apt step)."
    );
    this.name = 'SlurmNotInstalled';
  }
}

export function missingSlurmExecutables(): Array<[string, string]> {
  return REQUIRED.filter(([file]) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface CommandOptions {
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs a command to completion (no shell), with a kill timeout. */
export function run(
  file: string,
  args: readonly string[],
  options: CommandOptions = {}
): Promise<CommandResult> {
  return new Promise(resolve => {
    const timeoutMs = options.timeoutMs ?? 15000;
    execFile(
      file,
      args,
      {
        env: options.env,
        cwd: options.cwd,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 4 * 1024 * 1024
      },
      (error, stdout, stderr) => {
        const e = error as
          | (NodeJS.ErrnoException & {
              killed?: boolean;
              signal?: NodeJS.Signals | null;
            })
          | null;
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          signal: e?.signal ?? null,
          stdout: String(stdout),
          stderr: String(stderr),
          timedOut: Boolean(e?.killed)
        });
      }
    );
  });
}

function summarize(r: CommandResult): string {
  return `exit ${r.code}${r.signal ? ` signal ${r.signal}` : ''}${r.timedOut ? ' (timed out)' : ''}; stdout: ${r.stdout.trim()}; stderr: ${r.stderr.trim()}`;
}

/** A TCP port nothing listens on right now (slurm daemons bind every address, so check all). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '0.0.0.0', port: 0 }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** This machine as `slurmd -C` sees it (the NodeName line's hardware fields). */
export interface NodeHardware {
  CPUs: number;
  Boards: number;
  SocketsPerBoard: number;
  CoresPerSocket: number;
  ThreadsPerCore: number;
  RealMemory: number;
}

async function detectHardware(): Promise<NodeHardware> {
  // `slurmd -C` reads no configuration; SLURM_CONF is left out so it cannot find one by chance.
  const r = await run('/usr/sbin/slurmd', ['-C'], {
    env: { PATH: SYSTEM_PATH },
    timeoutMs: 15000
  });
  const line = r.stdout.split('\n').find(l => l.startsWith('NodeName=')) ?? '';
  const field = (name: string) => {
    const m = new RegExp(`\\b${name}=(\\d+)`).exec(line);
    return m ? Number(m[1]) : NaN;
  };
  const hw: NodeHardware = {
    CPUs: field('CPUs'),
    Boards: field('Boards'),
    SocketsPerBoard: field('SocketsPerBoard'),
    CoresPerSocket: field('CoresPerSocket'),
    ThreadsPerCore: field('ThreadsPerCore'),
    RealMemory: field('RealMemory')
  };
  if (
    r.code !== 0 ||
    Object.values(hw).some(v => !Number.isFinite(v) || v <= 0)
  ) {
    throw new Error(
      `\`slurmd -C\` did not describe this machine: ${summarize(r)}`
    );
  }
  return hw;
}

export interface SlurmCluster {
  /** The private temporary directory holding everything of this cluster. */
  readonly root: string;
  /** The generated slurm.conf: give it to every client as SLURM_CONF. */
  readonly conf: string;
  readonly clusterName: string;
  readonly partition: string;
  readonly nodeName: string;
  readonly hardware: NodeHardware;
  readonly ports: { slurmctld: number; slurmd: number };
  /** How authentication is set up, for the report. */
  readonly auth: string;
  /** Milliseconds from the first daemon's start to the node showing idle in sinfo. */
  readonly startupMs: number;
  /** SLURM_CONF and a PATH with the Slurm clients: what a person on the login node has. */
  readonly env: Record<string, string>;
  /** Runs a Slurm client (squeue, srun, ...) against this cluster. */
  slurm(
    command: string,
    args: readonly string[],
    options?: CommandOptions
  ): Promise<CommandResult>;
  /** `salloc --no-shell`: a live allocation with no step; returns its job id. */
  allocate(jobName: string, extraArgs?: readonly string[]): Promise<string>;
  /** The scheduler's state word for a job (`squeue -t all`), or undefined when it does not know it. */
  jobState(jobId: string): Promise<string | undefined>;
  /** The id of the most recent job with this name (`squeue -t all -n NAME`). */
  jobIdByName(jobName: string): Promise<string | undefined>;
  /** Polls (bounded) until the job's state is one of `states`; returns the state seen. */
  waitForJobState(
    jobId: string,
    states: readonly string[],
    timeoutMs?: number
  ): Promise<string>;
  cancel(jobId: string): Promise<void>;
  /** The last lines of the daemons' logs, for failure messages. */
  logTail(lines?: number): string;
  /** Cancels every job and stops the daemons by PID; removes the directory. Idempotent. */
  stop(): Promise<void>;
}

interface Daemon {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
  log: string;
}

const ACTIVE_STATES = [
  'PENDING',
  'CONFIGURING',
  'RUNNING',
  'COMPLETING',
  'SUSPENDED',
  'STAGE_OUT',
  'SIGNALING',
  'RESIZING'
];

/** Brings up munged, slurmctld and slurmd in a new temporary directory and waits for the node. */
export async function startSlurmCluster(
  options: { startTimeoutMs?: number } = {}
): Promise<SlurmCluster> {
  const missing = missingSlurmExecutables();
  if (missing.length > 0) {
    throw new SlurmNotInstalled(missing);
  }
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error(
      'The test Slurm cluster runs its daemons as root (SlurmUser=root; slurmd launches the jobs): run the cluster tests as root.'
    );
  }
  const startTimeoutMs = options.startTimeoutMs ?? 30000;
  const root = fs.realpathSync(
    fs.mkdtempSync(path.join(os.tmpdir(), 'ps-slurm-'))
  );
  // munged wants every directory on the way to its socket searchable by all ("execute
  // permissions for all required"), and its key, seed and log directories private.
  fs.chmodSync(root, 0o755);
  const dirs = {
    etc: path.join(root, 'etc'),
    run: path.join(root, 'run'),
    munge: path.join(root, 'munge'),
    state: path.join(root, 'state'),
    spool: path.join(root, 'spool'),
    log: path.join(root, 'log')
  };
  fs.mkdirSync(dirs.etc, { mode: 0o755 });
  fs.mkdirSync(dirs.run, { mode: 0o755 });
  fs.mkdirSync(dirs.munge, { mode: 0o700 });
  fs.mkdirSync(dirs.state, { mode: 0o700 });
  fs.mkdirSync(dirs.spool, { mode: 0o755 });
  fs.mkdirSync(dirs.log, { mode: 0o755 });
  fs.chmodSync(dirs.run, 0o755);

  const mungeSocket = path.join(dirs.run, 'munge.socket');
  const mungeKey = path.join(dirs.munge, 'munge.key');
  fs.writeFileSync(mungeKey, randomBytes(1024), { mode: 0o600 });

  const daemons: Daemon[] = [];
  let stopped = false;
  const killAllNow = () => {
    for (const d of daemons) {
      if (
        d.child.exitCode === null &&
        d.child.signalCode === null &&
        d.child.pid !== undefined
      ) {
        try {
          process.kill(d.child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  };
  // If the test process goes without calling stop(), take the daemons with it.
  process.once('exit', killAllNow);

  const startDaemon = (name: string, file: string, args: string[]): Daemon => {
    const log = path.join(dirs.log, `${name}.out`);
    const fd = fs.openSync(log, 'a', 0o644);
    const child = spawn(file, args, {
      cwd: root,
      env: { PATH: SYSTEM_PATH, SLURM_CONF: path.join(dirs.etc, 'slurm.conf') },
      stdio: ['ignore', fd, fd]
    });
    fs.closeSync(fd);
    const exited = new Promise<void>(resolve => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const daemon = { name, child, exited, log };
    daemons.push(daemon);
    return daemon;
  };

  const stopDaemon = async (d: Daemon, timeoutMs = 10000) => {
    if (
      d.child.exitCode !== null ||
      d.child.signalCode !== null ||
      d.child.pid === undefined
    ) {
      return;
    }
    try {
      process.kill(d.child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(d.child.pid as number, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }, timeoutMs);
    await d.exited;
    clearTimeout(timer);
  };

  const logTail = (lines = 25) =>
    [
      ...daemons.map(d => d.log),
      path.join(dirs.log, 'slurmctld.log'),
      path.join(dirs.log, 'slurmd.log'),
      path.join(dirs.munge, 'munged.log')
    ]
      .map(file => {
        try {
          const text = fs
            .readFileSync(file, 'utf8')
            .trimEnd()
            .split('\n')
            .slice(-lines)
            .join('\n');
          return text ? `--- ${path.basename(file)}\n${text}` : '';
        } catch {
          return '';
        }
      })
      .filter(Boolean)
      .join('\n');

  const conf = path.join(dirs.etc, 'slurm.conf');
  const env: Record<string, string> = { PATH: SYSTEM_PATH, SLURM_CONF: conf };
  const slurm = (
    command: string,
    args: readonly string[],
    o: CommandOptions = {}
  ) =>
    run(path.join('/usr/bin', command), args, {
      cwd: root,
      timeoutMs: 20000,
      ...o,
      env: { ...env, ...o.env }
    });

  const jobState = async (jobId: string) => {
    const r = await slurm('squeue', [
      '-h',
      '-j',
      jobId,
      '-o',
      '%T',
      '-t',
      'all'
    ]);
    const state = r.code === 0 ? r.stdout.trim().split(/\s+/)[0] : '';
    return state === '' ? undefined : state;
  };

  const cancelAll = async () => {
    const r = await slurm('squeue', [
      '-h',
      '-o',
      '%i',
      '-t',
      ACTIVE_STATES.join(',')
    ]);
    const ids = r.stdout.split(/\s+/).filter(Boolean);
    if (ids.length === 0) {
      return;
    }
    await slurm('scancel', ids);
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline) {
      const left = await slurm('squeue', [
        '-h',
        '-o',
        '%i',
        '-t',
        ACTIVE_STATES.join(',')
      ]);
      if (left.code !== 0 || left.stdout.trim() === '') {
        return;
      }
      await delay(200);
    }
    await slurm('scancel', ['--signal=KILL', '--full', ...ids]);
  };

  const stop = async () => {
    if (stopped) {
      return;
    }
    stopped = true;
    const slurmd = daemons.find(d => d.name === 'slurmd');
    const ctld = daemons.find(d => d.name === 'slurmctld');
    const alive = (d: Daemon | undefined) =>
      d !== undefined &&
      d.child.exitCode === null &&
      d.child.signalCode === null;
    if (alive(ctld) && alive(slurmd)) {
      await cancelAll();
    }
    if (alive(slurmd)) {
      // Any process still tracked for a job step on this node (none once every job is gone):
      // stop it by its PID before slurmd goes.
      const pids = await slurm('scontrol', ['listpids'], { timeoutMs: 5000 });
      for (const line of pids.stdout.split('\n').slice(1)) {
        const pid = Number(line.trim().split(/\s+/)[0]);
        if (Number.isInteger(pid) && pid > 1 && pid !== process.pid) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
      }
    }
    for (const name of ['slurmd', 'slurmctld', 'munged']) {
      const d = daemons.find(x => x.name === name);
      if (d) {
        await stopDaemon(d);
      }
    }
    process.removeListener('exit', killAllNow);
    fs.rmSync(root, { recursive: true, force: true });
  };

  try {
    const hardware = await detectHardware();
    const [ctldPort, slurmdPort] = await (async () => {
      const a = await freePort();
      let b = await freePort();
      while (b === a) {
        b = await freePort();
      }
      return [a, b];
    })();
    const clusterName = 'pstest';
    const partition = 'debug';
    const nodeName = 'localhost';

    fs.writeFileSync(path.join(dirs.etc, 'plugstack.conf'), '', {
      mode: 0o644
    });
    fs.writeFileSync(
      conf,
      [
        '# Generated by test/system/cluster/slurm.ts: a single-node cluster living in this directory.',
        `ClusterName=${clusterName}`,
        `SlurmctldHost=${nodeName}(127.0.0.1)`,
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${slurmdPort}`,
        'SlurmUser=root',
        'SlurmdUser=root',
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${mungeSocket}`,
        `StateSaveLocation=${dirs.state}`,
        `SlurmdSpoolDir=${dirs.spool}`,
        `SlurmctldPidFile=${path.join(dirs.run, 'slurmctld.pid')}`,
        `SlurmdPidFile=${path.join(dirs.run, 'slurmd.pid')}`,
        `SlurmctldLogFile=${path.join(dirs.log, 'slurmctld.log')}`,
        `SlurmdLogFile=${path.join(dirs.log, 'slurmd.log')}`,
        'SlurmctldDebug=info',
        'SlurmdDebug=info',
        `PlugStackConfig=${path.join(dirs.etc, 'plugstack.conf')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'JobAcctGatherType=jobacct_gather/none',
        'AccountingStorageType=accounting_storage/none',
        'JobCompType=jobcomp/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'SchedulerType=sched/backfill',
        'MpiDefault=none',
        'SwitchType=switch/none',
        'ReturnToService=2',
        'MailProg=/bin/true',
        'InactiveLimit=0',
        'KillWait=5',
        // Finished jobs stay visible to `squeue -t all` for 5 minutes (the whole test file).
        'MinJobAge=300',
        'SlurmctldTimeout=30',
        'SlurmdTimeout=30',
        `NodeName=${nodeName} NodeAddr=127.0.0.1 CPUs=${hardware.CPUs} Boards=${hardware.Boards} ` +
          `SocketsPerBoard=${hardware.SocketsPerBoard} CoresPerSocket=${hardware.CoresPerSocket} ` +
          `ThreadsPerCore=${hardware.ThreadsPerCore} RealMemory=${hardware.RealMemory} State=UNKNOWN`,
        // Jobs share the node's cores, so a held allocation never queues the next test's job.
        `PartitionName=${partition} Nodes=${nodeName} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:16`,
        ''
      ].join('\n'),
      { mode: 0o644 }
    );

    const began = Date.now();
    const munged = startDaemon('munged', '/usr/sbin/munged', [
      '--foreground',
      `--socket=${mungeSocket}`,
      `--key-file=${mungeKey}`,
      `--log-file=${path.join(dirs.munge, 'munged.log')}`,
      `--pid-file=${path.join(dirs.run, 'munged.pid')}`,
      `--seed-file=${path.join(dirs.munge, 'munged.seed')}`
    ]);
    const deadline = began + startTimeoutMs;
    const ensureRunning = (d: Daemon) => {
      if (d.child.exitCode !== null || d.child.signalCode !== null) {
        throw new Error(
          `${d.name} exited during start-up (code ${d.child.exitCode}, signal ${d.child.signalCode})\n${logTail()}`
        );
      }
    };
    while (!fs.existsSync(mungeSocket)) {
      ensureRunning(munged);
      if (Date.now() > deadline) {
        throw new Error(
          `munged did not create ${mungeSocket} within ${startTimeoutMs} ms\n${logTail()}`
        );
      }
      await delay(50);
    }

    const ctld = startDaemon('slurmctld', '/usr/sbin/slurmctld', [
      '-D',
      '-i',
      '-f',
      conf
    ]);
    const slurmd = startDaemon('slurmd', '/usr/sbin/slurmd', [
      '-D',
      '-f',
      conf,
      '-N',
      nodeName
    ]);

    let lastSinfo: CommandResult | undefined;
    for (;;) {
      ensureRunning(munged);
      ensureRunning(ctld);
      ensureRunning(slurmd);
      lastSinfo = await slurm(
        'sinfo',
        ['-h', '-N', '-n', nodeName, '-o', '%t'],
        { timeoutMs: 5000 }
      );
      if (lastSinfo.code === 0 && lastSinfo.stdout.trim() === 'idle') {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `node ${nodeName} did not become idle within ${startTimeoutMs} ms (last sinfo: ${summarize(lastSinfo)})\n${logTail()}`
        );
      }
      await delay(200);
    }
    const startupMs = Date.now() - began;

    const cluster: SlurmCluster = {
      root,
      conf,
      clusterName,
      partition,
      nodeName,
      hardware,
      ports: { slurmctld: ctldPort, slurmd: slurmdPort },
      auth: `auth/munge: munged ${path.basename(mungeSocket)} socket, key, seed, log and pid file in ${root}, AuthInfo=socket=${mungeSocket}`,
      startupMs,
      env,
      slurm,
      async allocate(jobName, extraArgs = []) {
        const r = await slurm('salloc', [
          '--no-shell',
          '-N1',
          '-n1',
          '-t',
          '10',
          '-J',
          jobName,
          ...extraArgs
        ]);
        const m = /Granted job allocation (\d+)/.exec(r.stderr);
        if (r.code !== 0 || !m) {
          throw new Error(
            `salloc --no-shell did not grant an allocation: ${summarize(r)}\n${logTail()}`
          );
        }
        return m[1];
      },
      jobState,
      async jobIdByName(jobName) {
        const r = await slurm('squeue', [
          '-h',
          '-t',
          'all',
          '-n',
          jobName,
          '-o',
          '%i'
        ]);
        const ids = r.stdout
          .split(/\s+/)
          .filter(Boolean)
          .map(Number)
          .sort((a, b) => a - b);
        return ids.length > 0 ? String(ids[ids.length - 1]) : undefined;
      },
      async waitForJobState(jobId, states, timeoutMs = 30000) {
        const until = Date.now() + timeoutMs;
        let state: string | undefined;
        for (;;) {
          state = await jobState(jobId);
          if (state !== undefined && states.includes(state)) {
            return state;
          }
          if (Date.now() > until) {
            throw new Error(
              `job ${jobId} did not reach ${states.join('/')} within ${timeoutMs} ms (last state: ${state ?? 'unknown'})\n${logTail()}`
            );
          }
          await delay(200);
        }
      },
      async cancel(jobId) {
        const r = await slurm('scancel', [jobId]);
        if (r.code !== 0) {
          throw new Error(`scancel ${jobId} failed: ${summarize(r)}`);
        }
      },
      logTail,
      stop
    };
    return cluster;
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
