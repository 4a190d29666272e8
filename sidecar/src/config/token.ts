// The rules of a service token set by hand (PROJECT_STARTUP_TOKEN) and of hand-set secrets.
// Never read from the site configuration file: a token never lives there.
import { SettingError } from './errors';

const TOKEN_ENV = 'PROJECT_STARTUP_TOKEN';

/**
 * What a service token may be: 16 to 1024 characters of RFC 6750's b64token (letters, digits,
 * `-._~+/`, then optional `=` padding), the only characters `Authorization: Bearer` can carry.
 * 16 is the trusted-proxy secret's minimum too; a generated token has 64 hex digits.
 */
export const TOKEN_MIN_LENGTH = 16;
export const TOKEN_MAX_LENGTH = 1024;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * A secret set by hand (PROJECT_STARTUP_TOKEN, the trusted proxy's secret) must hold at least
 * this many different characters. It refuses placeholders and patterns (one letter 16 times,
 * "abab...", "1234" repeated) and never a random secret: 16 random hex digits have fewer than 5
 * different ones about once in two million. It is no estimate of randomness ("password12345678"
 * passes); a stronger test would refuse some random secrets or be hard to explain, so the
 * messages name a generator instead.
 */
export const SECRET_MIN_DISTINCT_CHARACTERS = 5;

/** Whether a hand-set secret has too few different characters to be anything but a pattern. */
export function isPatternSecret(secret: string): boolean {
  return new Set(secret).size < SECRET_MIN_DISTINCT_CHARACTERS;
}

/** The token from PROJECT_STARTUP_TOKEN, if it follows the rules; the message never shows it. */
export function checkServiceToken(token: string): string {
  const rule = `a token of ${TOKEN_MIN_LENGTH} to ${TOKEN_MAX_LENGTH} characters from A-Z a-z 0-9 - . _ ~ + / (optionally ending in =), which "Authorization: Bearer" can carry, with at least ${SECRET_MIN_DISTINCT_CHARACTERS} different characters`;
  const fix = `Generate one with \`node -p "require('crypto').randomBytes(32).toString('hex')"\`, or unset ${TOKEN_ENV} to have one generated.`;
  if (token.length < TOKEN_MIN_LENGTH || token.length > TOKEN_MAX_LENGTH) {
    throw new SettingError(
      `${TOKEN_ENV} is ${token.length < TOKEN_MIN_LENGTH ? 'too short' : 'too long'}: it must be ${rule}. ${fix}`
    );
  }
  if (!B64TOKEN.test(token)) {
    throw new SettingError(
      `${TOKEN_ENV} holds a character it may not: it must be ${rule}. ${fix}`
    );
  }
  if (isPatternSecret(token)) {
    throw new SettingError(
      `${TOKEN_ENV} has fewer than ${SECRET_MIN_DISTINCT_CHARACTERS} different characters, a pattern rather than a secret: it must be ${rule}. ${fix}`
    );
  }
  return token;
}
