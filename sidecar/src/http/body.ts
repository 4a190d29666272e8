// Reads a JSON request body within the 16 KiB limit, refusing anything but application/json.
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../core/problems';

export const BODY_LIMIT_BYTES = 16 * 1024;

export function isJsonContentType(value: string | undefined): boolean {
  if (!value) {
    return false;
  }
  const mediaType = value.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json';
}

export function readJsonBody(request: IncomingMessage): Promise<unknown> {
  if (!isJsonContentType(request.headers['content-type'])) {
    // Browsers send form posts cross-site without a preflight; JSON they cannot.
    return Promise.reject(
      new ProblemError(
        'unsupported-media-type',
        'Send the body as JSON with Content-Type: application/json.'
      )
    );
  }
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (declared > BODY_LIMIT_BYTES) {
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: ProblemError) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    };
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        fail(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('error', () =>
      fail(
        new ProblemError(
          'invalid-json',
          'The request body could not be read completely.'
        )
      )
    );
    request.on('end', () => {
      if (settled) {
        return;
      }
      settled = true;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(
          new ProblemError(
            'invalid-json',
            text.trim() === ''
              ? 'The request body is empty; send a JSON object.'
              : 'The request body is not valid JSON.'
          )
        );
      }
    });
  });
}

function tooLarge(): ProblemError {
  return new ProblemError(
    'payload-too-large',
    `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes.`,
    {
      limitBytes: BODY_LIMIT_BYTES
    }
  );
}

const DRAIN_MAX_BYTES = 1024 * 1024;
const DRAIN_MAX_MS = 2000;

/** Reads and discards what is left of a request body, within a size and a time bound. */
export function drainRequest(request: IncomingMessage): Promise<void> {
  if (request.complete || request.readableEnded || request.destroyed) {
    return Promise.resolve();
  }
  return new Promise(resolve => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', done);
      request.off('error', done);
      request.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) {
        done(); // too much to wait for: answer now, the socket closes after
      }
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    request.on('data', onData);
    request.once('end', done);
    request.once('error', done);
    request.once('close', done);
    request.resume();
  });
}
