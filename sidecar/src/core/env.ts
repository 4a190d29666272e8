// The environment a process was given, as it reads it: variables by name, any of them unset.
export type Env = Readonly<Record<string, string | undefined>>;
