// What the command line asks of the project, wherever the answers come from: a running service
// (client.ts), the service behind this terminal's Jupyter server (jupyter-client.ts), or the same
// core evaluated in this process. Its own file so that neither client imports the other.
import type { Manifest } from '../core/manifest';
import type { InterfaceId } from '../core/vocabulary';
import type { InitializeResult, StartupResult } from '../service/service';

export interface ProjectClient {
  /** Where the answers come from, for a person. */
  readonly source: string;
  capabilities(): Promise<Manifest>;
  startup(iface: InterfaceId): Promise<StartupResult>;
  /** `promptAnswered`: a person answered the command line's prompt on a TTY just now. */
  initialize(body: object, promptAnswered: boolean): Promise<InitializeResult>;
}
