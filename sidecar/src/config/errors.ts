// The errors of a configuration the service refuses (config.ts, and the command line's own checks).
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * A setting (an environment variable or a flag) the service refuses. Unlike a file-system
 * condition (a runtime directory made private, a socket freed), it stays wrong until whoever
 * launched the service changes it, so launched by jupyter-server-proxy the service does not exit
 * (a relaunch cannot help) but answers `misconfigured` (see misconfigured.ts).
 */
export class SettingError extends ConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}
