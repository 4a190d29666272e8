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

export interface ProcessCredentials {
  /** Provider credentials present (non-empty), by name, sorted. */
  provider: string[];
  /** Other credential-like names present, which are not counted. */
  ignored: string[];
}

export function classifyProcessCredentials(
  env: Readonly<Record<string, string | undefined>>,
  credentialLike: readonly string[]
): ProcessCredentials {
  const present = (name: string) => env[name] !== undefined && env[name] !== '';
  const provider = PROVIDER_CREDENTIAL_VARIABLES.filter(present).sort();
  const ignored = credentialLike.filter(name => !provider.includes(name));
  return { provider, ignored };
}

/** The process backend's observation, for a person: which provider credentials, by name. */
export function describeProcessCredentials(c: ProcessCredentials): string {
  const found =
    c.provider.length > 0
      ? `model provider credential(s) present: ${c.provider.join(', ')}`
      : 'no model provider credential in the environment';
  // No ";" inside: the check joins the backends' observations with it.
  return c.ignored.length > 0
    ? `${found} (not model credentials, not counted: ${c.ignored.join(', ')})`
    : found;
}
