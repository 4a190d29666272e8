// `project-startup init` with no service running creates the state through POST
// /project/initialize all the same, served by its own process on a Unix socket in a fresh private
// directory (sidecar/src/cli/in-process.ts). What that route sees and leaves behind.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { trackedSandboxes } from '../helpers/cli';
import { resolveConfig } from '../../sidecar/src/config/config';
import { ProblemError } from '../../sidecar/src/core/problems';
import type { CreationStep } from '../../sidecar/src/observe/state';
import { StartupService } from '../../sidecar/src/service/service';
import { initializeInProcess } from '../../sidecar/src/cli/in-process';

const sandbox = trackedSandboxes();

/** A cluster allocation in a fresh sandbox whose temporary directory is `tmp`. */
function cluster(
  tmp: string | undefined,
  onCreationStep?: (step: CreationStep) => void
) {
  const s = sandbox();
  const env: Record<string, string> = {
    ...s.env,
    SLURM_JOB_ID: '4242',
    PROJECT_STARTUP_APPROVED_STORAGE: s.root
  };
  const service = new StartupService({
    config: resolveConfig({ projectDir: s.projectDir }, env),
    env,
    onCreationStep
  });
  return { s, service };
}

async function confirmBody(service: StartupService) {
  const p = await service.startup('terminal');
  expect(p.phase).toBe('awaiting-confirmation');
  return {
    interface: 'terminal',
    confirm: { projectPath: p.projectPath, statePath: p.statePath }
  };
}

describe("init's in-process initialize route", () => {
  it('serves the one request on a socket in a 0700 directory of its own, then removes both', async () => {
    const tmp = fs.mkdtempSync(path.join('/tmp', 'ps-in-process-'));
    try {
      const seen: { mode: number; entries: string[]; socket: boolean }[] = [];
      const { service } = cluster(tmp, step => {
        if (step === 'parents-created') {
          // The route is writing now: its socket directory is there, private, with the socket.
          for (const name of fs.readdirSync(tmp)) {
            const dir = path.join(tmp, name);
            seen.push({
              mode: fs.lstatSync(dir).mode & 0o777,
              entries: fs.readdirSync(dir),
              socket: fs.lstatSync(path.join(dir, 's')).isSocket()
            });
          }
        }
      });
      const body = await confirmBody(service);
      const answer = await initializeInProcess(service, body, true, tmp);
      expect(seen).toEqual([{ mode: 0o700, entries: ['s'], socket: true }]);
      expect(answer.status).toBe(201);
      expect(answer.body.record.confirmation).toEqual({
        interface: 'terminal',
        method: 'terminal-prompt',
        ingress: 'command-line',
        confirmedAt: expect.any(String)
      });
      expect(fs.readdirSync(tmp)).toEqual([]);
      // Idempotent through the same route: 200 with the same record.
      const again = await initializeInProcess(service, body, true, tmp);
      expect(again.status).toBe(200);
      expect(again.body.record).toEqual(answer.body.record);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('without the prompt answered it is a plain API call, which does not confirm on the cluster: nothing is created', async () => {
    const tmp = fs.mkdtempSync(path.join('/tmp', 'ps-in-process-'));
    try {
      const { s, service } = cluster(tmp);
      const body = await confirmBody(service);
      const refused = await initializeInProcess(service, body, false, tmp).then(
        () => undefined,
        (error: unknown) => error
      );
      expect(refused).toBeInstanceOf(ProblemError);
      expect((refused as ProblemError).code).toBe('confirmation-not-allowed');
      expect(fs.readdirSync(s.projectDir)).toEqual([]);
      expect(fs.readdirSync(tmp)).toEqual([]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a temporary directory whose path is too long for a socket (macOS: 104 bytes) is passed over for /tmp', async () => {
    const { s, service } = cluster(undefined);
    const deep = path.join(s.root, 'x'.repeat(100));
    fs.mkdirSync(deep);
    const body = await confirmBody(service);
    const answer = await initializeInProcess(service, body, true, deep);
    expect(answer.status).toBe(201);
    expect(fs.readdirSync(deep)).toEqual([]);
  });
});
