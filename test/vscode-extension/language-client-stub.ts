/**
 * A stand-in for `vscode-languageclient/node` (which needs VS Code): records the clients the
 * extension creates and answers their requests with `answer`.
 */

export enum TransportKind {
  stdio = 0,
  ipc = 1,
  pipe = 2,
  socket = 3,
}

export class LanguageClient {
  static readonly instances: LanguageClient[] = [];
  /** Answers a request of any client; replace it in a test. */
  static answer: (method: string, params: unknown) => unknown = () => null;

  readonly requests: { method: string; params: unknown }[] = [];
  state: 'created' | 'running' | 'stopped' = 'created';

  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: unknown,
    readonly clientOptions: Record<string, unknown>,
  ) {
    LanguageClient.instances.push(this);
  }

  async start(): Promise<void> {
    this.state = 'running';
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
  }

  async sendRequest<R>(method: string, params: unknown): Promise<R> {
    this.requests.push({ method, params });
    return LanguageClient.answer(method, params) as R;
  }
}
