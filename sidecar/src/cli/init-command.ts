// `project-startup init`: shows what would be created, asks a person at a TTY, then creates.
import { stateUnsafeProblem } from '../core/initialization';
import { ProblemError } from '../core/problems';
import { line } from '../core/terminal-text';
import { labelOf } from '../core/vocabulary';
import type { ProjectClient } from './project-client';
import { EXIT, Io } from './usage';

type Startup = Awaited<ReturnType<ProjectClient['startup']>>;
type Say = (text: string) => void;

export async function init(
  client: ProjectClient,
  json: boolean,
  io: Io
): Promise<number> {
  const projection = await client.startup('terminal');
  const say: Say = text => (json ? io.stderr : io.stdout).write(text);
  if (projection.phase === 'ready' || projection.confirmation.confirmed) {
    return alreadySetUp(projection, json, io, say);
  }
  // The state's own problem first, as POST initialize answers it: no advice about where to
  // confirm or which phase comes later while the state itself is what stops setup.
  const unsafe = stateUnsafeProblem(projection);
  if (unsafe) {
    throw unsafe;
  }
  refuseUnlessAskable(projection, io);
  return askAndCreate(client, projection, json, io, say);
}

/**
 * Already set up is success on every platform, wherever the confirmation happened (as POST
 * initialize answers 200 with the record): nothing to confirm, so nothing to refuse. Confirmed
 * but not ready (a cluster project checked on a login node): the state is there, so
 * init's part is done; what is left is the projection's next action.
 */
function alreadySetUp(
  projection: Startup,
  json: boolean,
  io: Io,
  say: Say
): number {
  say(
    projection.phase === 'ready'
      ? `${line`Already set up: ${projection.statePath} holds this project's state. Nothing to do.`}\n`
      : `${line`Already set up: ${projection.statePath} holds this project's state. Next: ${projection.nextAction.title}. ${projection.nextAction.detail}`}\n`
  );
  if (json) {
    // The shape of POST initialize's 200: the record, created false.
    const answer = {
      schemaVersion: projection.schemaVersion,
      created: false,
      record: projection.confirmation.record,
      phase: projection.phase,
      nextAction: projection.nextAction
    };
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  }
  return EXIT.ok;
}

/** Throws the problem when the prompt may not be asked here and now, saying what works. */
function refuseUnlessAskable(projection: Startup, io: Io): void {
  const allowedInterfaces = projection.confirmation.allowedInterfaces;
  const next = projection.nextAction;
  if (!allowedInterfaces.includes('terminal')) {
    throw new ProblemError(
      'confirmation-not-allowed',
      `On the ${labelOf(projection.platform)} the project state is created after a confirmation in ${allowedInterfaces
        .map(labelOf)
        .join(' or ')}, not at a terminal prompt. ${next.detail}`,
      { allowedInterfaces }
    );
  }
  if (projection.phase !== 'awaiting-confirmation') {
    const command =
      next.command && !next.detail.includes(next.command)
        ? ` Run \`${next.command}\`.`
        : '';
    throw new ProblemError(
      'wrong-phase',
      `Setup is in phase ${projection.phase}; initialization comes later. Next: ${next.title}. ${next.detail}${command}`,
      { phase: projection.phase, nextAction: next }
    );
  }
  const readOnly = projection.readinessChecks.find(
    c => c.id === 'gateway-ingress' && c.status === 'warn'
  );
  if (readOnly) {
    // A service on an ingress the platform does not offer changes nothing: the next action
    // says what works (init --local, or the platform's own ingress), in the model's words.
    throw new ProblemError(
      'confirmation-not-allowed',
      `${readOnly.observed}. ${next.detail}`,
      { allowedInterfaces }
    );
  }
  if (!(io.stdin as NodeJS.ReadStream).isTTY) {
    // An explicit confirmation is a person at a terminal: `echo y |` answers nobody's question.
    throw new ProblemError(
      'confirmation-not-allowed',
      'init asks a person and needs an interactive terminal: its input is not a TTY (a pipe or a file). Run `project-startup init` in a terminal and answer the question there.',
      { allowedInterfaces }
    );
  }
}

/** Shows what would be created, asks, and creates on a yes. */
async function askAndCreate(
  client: ProjectClient,
  projection: Startup,
  json: boolean,
  io: Io,
  say: Say
): Promise<number> {
  say(
    [
      line`Project:  ${projection.projectPath}`,
      line`Platform: ${labelOf(projection.platform)}`,
      'This will create, readable only by you:',
      ...projection.confirmation.creates.map(
        (p: string) => line`  ${p}/ (directory, mode 0700)`
      ),
      line`  ${projection.statePath}/initialization.json (mode 0600: what you confirmed, when, and how; no credentials)`,
      ''
    ].join('\n')
  );
  const answer = await ask('Create the private project state? [y/N] ', io);
  if (answer === undefined || !/^(y|yes)$/i.test(answer.trim())) {
    say(
      answer === undefined
        ? '\nNo answer; nothing was created.\n'
        : 'Declined; nothing was created.\n'
    );
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ created: false, declined: true, phase: projection.phase }, null, 2)}\n`
      );
    }
    return EXIT.declined;
  }
  const result = await client.initialize(
    {
      interface: 'terminal',
      confirm: {
        projectPath: projection.projectPath,
        statePath: projection.statePath
      }
    },
    true
  );
  if (json) {
    io.stdout.write(`${JSON.stringify(result.body, null, 2)}\n`);
  } else {
    io.stdout.write(
      `${line`${result.body.created ? 'Created' : 'Already present'}: ${result.body.record.statePath} (phase ${result.body.phase}).`}\n`
    );
  }
  return EXIT.ok;
}

/** One line from the person; undefined at end of input. The question goes to stderr. */
function ask(question: string, io: Io): Promise<string | undefined> {
  return new Promise(resolve => {
    const rl = (
      require('node:readline') as typeof import('node:readline')
    ).createInterface({ input: io.stdin, output: io.stderr, terminal: false });
    let answered = false;
    io.stderr.write(question);
    rl.once('line', line => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) {
        resolve(undefined);
      }
    });
  });
}
