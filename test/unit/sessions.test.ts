// The session rules on a clock the test moves (the service tests check, with real time, that
// the limits a user sets reach them): an idle session ends, a used one lives on until its
// maximum age, and a sign-in flood ends the oldest sessions first.
import { MAX_SESSIONS, SessionStore } from '../../sidecar/src/http/sessions';

function storeAt(limits: { idleSeconds: number; maxSeconds: number }) {
  const clock = { now: 1_000_000 };
  const store = new SessionStore(limits, () => clock.now);
  return { store, clock };
}

it('a session ends once it has been idle for idleSeconds, not a millisecond sooner', () => {
  const { store, clock } = storeAt({ idleSeconds: 60, maxSeconds: 3600 });
  const id = store.create();
  clock.now += 59_999;
  expect(store.check(id)).toBe(true);
  clock.now += 59_999; // idle time starts again at each request
  expect(store.check(id)).toBe(true);
  clock.now += 60_000;
  expect(store.check(id)).toBe(false);
  // Ended for good: no later look revives it.
  clock.now -= 30_000;
  expect(store.check(id)).toBe(false);
});

it('a session in use still ends maxSeconds after sign-in', () => {
  const { store, clock } = storeAt({ idleSeconds: 60, maxSeconds: 120 });
  const id = store.create();
  for (let i = 0; i < 3; i++) {
    clock.now += 39_999;
    expect(store.check(id)).toBe(true);
  }
  clock.now += 3; // 120,000 ms after sign-in
  expect(store.check(id)).toBe(false);
  // A new sign-in starts a new session with its own clock.
  const next = store.create();
  expect(store.check(next)).toBe(true);
});

it(`a sign-in flood keeps ${MAX_SESSIONS} sessions, ending the oldest`, () => {
  const { store, clock } = storeAt({ idleSeconds: 60, maxSeconds: 3600 });
  const ids = Array.from({ length: MAX_SESSIONS + 1 }, () => {
    clock.now += 1;
    return store.create();
  });
  expect(store.size).toBe(MAX_SESSIONS);
  expect(store.check(ids[0])).toBe(false);
  expect(ids.slice(1).every(id => store.check(id))).toBe(true);
});

it('an id never issued, or one of another store, names no session', () => {
  const { store } = storeAt({ idleSeconds: 60, maxSeconds: 3600 });
  expect(store.check('not-a-session')).toBe(false);
  const other = storeAt({ idleSeconds: 60, maxSeconds: 3600 }).store.create();
  store.create();
  expect(store.check(other)).toBe(false);
});

it('expired sessions are swept when a new one starts, so memory follows the live ones', () => {
  const { store, clock } = storeAt({ idleSeconds: 10, maxSeconds: 3600 });
  for (let i = 0; i < 5; i++) {
    store.create();
  }
  clock.now += 10_000;
  store.create();
  expect(store.size).toBe(1);
});
