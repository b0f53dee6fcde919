import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A Redis server speaking RESP2 with the few commands the app's client sends outside the rate
 * limiter (INFO for its ready check, PING, SUBSCRIBE, PUBLISH, QUIT); anything else answers an
 * error, which the rate limiter is configured to skip. `stop()` closes it and every connection,
 * as a Redis that goes down: its URL then names a closed port.
 */
export class FakeRedis {
  readonly commands: string[] = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  async start(): Promise<string> {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      let buffer = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        for (;;) {
          const parsed = parseCommand(buffer);
          if (!parsed) break;
          buffer = buffer.subarray(parsed.length);
          this.answer(socket, parsed.args);
        }
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `redis://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    const closed = new Promise<void>((r) => this.server!.close(() => r()));
    for (const s of this.sockets) s.destroy();
    await closed;
    this.server = undefined;
  }

  private answer(socket: Socket, args: string[]): void {
    const name = (args[0] ?? '').toUpperCase();
    this.commands.push(name);
    const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
    switch (name) {
      case 'INFO':
        return void socket.write(bulk('# Server\r\nredis_version:7.2.0\r\nloading:0\r\n'));
      case 'PING':
        return void socket.write('+PONG\r\n');
      case 'SUBSCRIBE':
        return void socket.write(
          args
            .slice(1)
            .map((channel, i) => `*3\r\n${bulk('subscribe')}${bulk(channel)}:${i + 1}\r\n`)
            .join(''),
        );
      case 'PUBLISH':
        return void socket.write(':0\r\n');
      case 'QUIT':
        socket.end('+OK\r\n');
        return;
      default:
        return void socket.write(`-ERR unknown command '${name}'\r\n`);
    }
  }
}

/** One command (an array of bulk strings) from the front of the buffer, or null if incomplete. */
function parseCommand(buf: Buffer): { args: string[]; length: number } | null {
  let at = 0;
  const line = () => {
    const end = buf.indexOf('\r\n', at);
    if (end < 0) return null;
    const text = buf.subarray(at, end).toString();
    at = end + 2;
    return text;
  };
  const head = line();
  if (head === null) return null;
  if (!head.startsWith('*')) return { args: head.split(' '), length: at }; // inline command
  const args: string[] = [];
  for (let i = 0, n = Number(head.slice(1)); i < n; i++) {
    const size = line();
    if (size === null) return null;
    const len = Number(size.slice(1));
    if (buf.length < at + len + 2) return null;
    args.push(buf.subarray(at, at + len).toString());
    at += len + 2;
  }
  return { args, length: at };
}
