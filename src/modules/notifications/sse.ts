import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NotificationStream, StreamEvent } from './notification-stream.js';

// A comment line this often keeps proxies and load balancers from closing an idle stream.
const HEARTBEAT_MS = 25_000;

const frame = (e: StreamEvent) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;

/**
 * Serves a user's Server-Sent Events stream: the unread count at once, then every new
 * notification and unread count until the client leaves or the server shuts down.
 */
export function openStream(req: FastifyRequest, reply: FastifyReply, stream: NotificationStream, unread: number): void {
  const res = reply.raw;
  // The headers set by the hooks so far (CORS, security headers, request id) go out with the stream.
  const inherited = Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  reply.hijack();
  res.writeHead(200, {
    ...inherited,
    'content-type': 'text/event-stream; charset=utf-8',
    // One person's stream, never stored; no-transform keeps proxies from compressing or buffering it.
    'cache-control': 'private, no-store, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': req.id,
  });
  res.write(`retry: 5000\n${frame({ event: 'unread', data: { count: unread } })}`);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const end = () => {
    clearInterval(heartbeat);
    unsubscribe();
    if (!res.writableEnded) res.end();
  };
  const unsubscribe = stream.subscribe(req.user.id, (e) => res.write(frame(e)), end);
  req.raw.on('close', end);
}
