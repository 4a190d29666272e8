// Browser sessions of direct loopback. Each sign-in (a right `?token=`) gets a new random id,
// kept only in this process's memory: restarting the service ends every session. A session
// ends after `idleSeconds` without a request and `maxSeconds` after sign-in, whichever comes
// first. At most MAX_SESSIONS live at once (a new sign-in ends the oldest), so sign-in floods
// cannot grow memory. Pure apart from the random id: the clock is given.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SessionLimits } from '../config/config';

export const MAX_SESSIONS = 64;

interface Session {
  /** SHA-256 of the id: the id itself is never kept, so a memory dump holds no cookie. */
  digest: Buffer;
  createdAt: number;
  lastSeenAt: number;
}

function digestOf(id: string): Buffer {
  return createHash('sha256').update(id).digest();
}

export class SessionStore {
  private sessions: Session[] = [];
  /** Compared with when there is no session at all, so every check does the same work. */
  private readonly neverIssued = digestOf(
    randomBytes(32).toString('base64url')
  );

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now
  ) {}

  /** Starts a session; returns its id, the cookie's value (256 random bits). */
  create(): string {
    const now = this.now();
    this.sessions = this.sessions.filter(s => this.live(s, now));
    const id = randomBytes(32).toString('base64url');
    this.sessions.push({
      digest: digestOf(id),
      createdAt: now,
      lastSeenAt: now
    });
    if (this.sessions.length > MAX_SESSIONS) {
      this.sessions.splice(0, this.sessions.length - MAX_SESSIONS);
    }
    return id;
  }

  /**
   * Whether `id` names a live session (then its idle time starts again). Every stored digest is
   * compared in constant time, without stopping at a match: the time taken says nothing about
   * which digest, or how much of one, matched.
   */
  check(id: string): boolean {
    const given = digestOf(id);
    const now = this.now();
    let found: Session | undefined;
    for (const session of this.sessions.length > 0
      ? this.sessions
      : [undefined]) {
      const same = timingSafeEqual(given, session?.digest ?? this.neverIssued);
      if (same && session !== undefined) {
        found = session;
      }
    }
    if (found === undefined) {
      return false;
    }
    if (!this.live(found, now)) {
      this.sessions = this.sessions.filter(s => s !== found);
      return false;
    }
    found.lastSeenAt = now;
    return true;
  }

  /** How many sessions are held (live or not yet swept). */
  get size(): number {
    return this.sessions.length;
  }

  private live(session: Session, now: number): boolean {
    return (
      now - session.lastSeenAt < this.limits.idleSeconds * 1000 &&
      now - session.createdAt < this.limits.maxSeconds * 1000
    );
  }
}
