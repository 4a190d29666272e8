// The gate's two redirects (the prefix without its slash, and a just-used address token taken
// out of the address): Location percent-encoded as `encodeurl` does, `Vary: Accept`, and a short
// body in the type the client prefers of text/plain and text/html (none when it accepts neither).
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** encodeurl 2: characters a URL may not hold, and `%` not starting an escape, encoded. */
const ENCODE_CHARS =
  /(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]+|%+(?![0-9A-Fa-f]{2})){1,1024}/g;
const SURROGATES = /([\uD800-\uDBFF][\uDC00-\uDFFF])|[\uD800-\uDFFF]/g;

export function encodeUrl(url: string): string {
  return url
    .replace(SURROGATES, (_, pair: string | undefined) => pair ?? '\uFFFD')
    .replace(ENCODE_CHARS, encodeURI);
}

const HTML_ESCAPES: Record<string, string> = {
  '"': '&quot;',
  '&': '&amp;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;'
};

function escapeHtml(text: string): string {
  return text.replace(/["&'<>]/g, c => HTML_ESCAPES[c]);
}

/** One media range of an Accept header. */
interface AcceptRange {
  type: string;
  subtype: string;
  params: number;
  q: number;
  order: number;
}

function parseAccept(accept: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  accept.split(',').forEach((part, order) => {
    const [mediaType, ...params] = part.trim().split(';');
    const match = /^([^\s/]+)\/([^\s/]+)$/.exec(mediaType.trim());
    if (!match) {
      return;
    }
    let q = 1;
    let other = 0;
    for (const param of params) {
      const [name, value = ''] = param.trim().split('=');
      if (name.trim().toLowerCase() === 'q') {
        q = Number.parseFloat(value.trim());
      } else {
        other++;
      }
    }
    const [type, subtype] = [match[1].toLowerCase(), match[2].toLowerCase()];
    ranges.push({ type, subtype, params: other, q, order });
  });
  return ranges;
}

/**
 * The best range of the header for a media type, as `negotiator` ranks them: the most
 * specific match first, then the highest q, then the first.
 */
type Priority = { q: number; s: number; o: number };

function priorityOf(
  mediaType: string,
  ranges: AcceptRange[]
): Priority | undefined {
  const [type, subtype] = mediaType.split('/');
  let best: Priority | undefined;
  for (const range of ranges) {
    let s = 0;
    if (range.type === type) {
      s |= 4;
    } else if (range.type !== '*') {
      continue;
    }
    if (range.subtype === subtype) {
      s |= 2;
    } else if (range.subtype !== '*') {
      continue;
    }
    if (range.params > 0) {
      continue; // a range with parameters matches only a type that has them: none here
    }
    const current = best ?? { q: 0, s: 0, o: -1 };
    if ((current.s - s || current.q - range.q || current.o - range.order) < 0) {
      best = { q: range.q, s, o: range.order };
    }
  }
  return best;
}

/** text/plain or text/html, whichever the Accept header prefers (text/plain without one). */
export function preferredRedirectType(
  accept: string | undefined
): 'text/plain' | 'text/html' | undefined {
  const candidates = ['text/plain', 'text/html'] as const;
  if (accept === undefined) {
    return candidates[0];
  }
  const ranges = parseAccept(accept);
  const ranked = candidates
    .map((type, i) => ({ type, i, priority: priorityOf(type, ranges) }))
    .filter(c => c.priority !== undefined && c.priority.q > 0)
    .sort((a, b) => {
      const [p, r] = [a.priority, b.priority] as [Priority, Priority];
      return r.q - p.q || r.s - p.s || p.o - r.o || a.i - b.i;
    });
  return ranked[0]?.type;
}

/** Redirects to `location` with `status`; the common headers are already set. */
export function sendRedirect(
  request: IncomingMessage,
  response: ServerResponse,
  status: 303 | 308,
  location: string
): void {
  const address = encodeUrl(location);
  const message = STATUS_CODES[status] ?? '';
  response.setHeader('Location', address);
  response.setHeader('Vary', 'Accept');
  const type = preferredRedirectType(request.headers.accept);
  let body = '';
  if (type === 'text/plain') {
    body = `${message}. Redirecting to ${address}`;
  } else if (type === 'text/html') {
    body = `<!DOCTYPE html><head><title>${message}</title></head><body><p>${message}. Redirecting to ${escapeHtml(address)}</p></body>`;
  }
  if (type !== undefined) {
    response.setHeader('Content-Type', `${type}; charset=utf-8`);
  }
  response.statusCode = status;
  response.setHeader('Content-Length', String(Buffer.byteLength(body)));
  response.end(request.method === 'HEAD' ? undefined : body);
}
