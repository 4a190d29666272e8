import type { Env } from '../core/env';
// Which environment variables are model-provider credentials. A hub's own tokens
// (JUPYTERHUB_API_TOKEN, JPY_API_TOKEN) or a forge token (GITHUB_TOKEN) look like credentials
// but reach no model, so they never make the process backend count as available. Names only.

/** Variables the model providers' own clients read, and this project's gateway credential. */
export const PROVIDER_CREDENTIAL_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'COHERE_API_KEY',
  'CO_API_KEY',
  'GROQ_API_KEY',
  'TOGETHER_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'OPENROUTER_API_KEY',
  'FIREWORKS_API_KEY',
  'PERPLEXITY_API_KEY',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'PROJECT_STARTUP_AI_GATEWAY_TOKEN'
];

/** The institution gateway's credential: a model credential only where the gateway is arranged. */
export const GATEWAY_TOKEN_VARIABLE: string =
  'PROJECT_STARTUP_AI_GATEWAY_TOKEN';

export interface ProcessCredentials {
  /** Provider credentials present (non-empty), by name, sorted. */
  provider: string[];
  /** Other credential-like names present, which are not counted. */
  ignored: string[];
  /** Credentials present for a source this site has not arranged, which are not counted. */
  unarranged: string[];
}

/**
 * The process backend's credentials. `gatewayArranged`: whether this site arranged the
 * institution gateway; where it did not, the gateway's token reaches no model here and is not
 * counted.
 */
export function classifyProcessCredentials(
  env: Env,
  credentialLike: readonly string[],
  gatewayArranged = true
): ProcessCredentials {
  const present = (name: string) => env[name] !== undefined && env[name] !== '';
  const found = PROVIDER_CREDENTIAL_VARIABLES.filter(present).sort();
  const unarranged = gatewayArranged
    ? []
    : found.filter(name => name === GATEWAY_TOKEN_VARIABLE);
  const provider = found.filter(name => !unarranged.includes(name));
  const ignored = credentialLike.filter(name => !found.includes(name));
  return { provider, ignored, unarranged };
}

/** The process backend's observation, for a person: which provider credentials, by name. */
export function describeProcessCredentials(c: ProcessCredentials): string {
  const found =
    c.provider.length > 0
      ? `model provider credential(s) present: ${c.provider.join(', ')}`
      : 'no model provider credential in the environment';
  // No ";" inside: the check joins the backends' observations with it.
  const notes = [
    ...(c.unarranged.length > 0
      ? [
          `not counted, the gateway is not arranged at this site: ${c.unarranged.join(', ')}`
        ]
      : []),
    ...(c.ignored.length > 0
      ? [`not model credentials, not counted: ${c.ignored.join(', ')}`]
      : [])
  ];
  return notes.length > 0 ? `${found} (${notes.join(' / ')})` : found;
}
