import type { FastifyInstance, onSendHookHandler } from 'fastify';
import type { ListingCache } from './cache.js';

/** A scope of cached listings a write can change: a prefix of the scopes of `ctx.listings.get` (`stores.nearby`). */
export type ListingScope = 'suppliers.' | 'stores.' | 'products.' | 'deals.' | 'associations.';

/**
 * What a supplier's writes (its profile, verification, stores, deals) can change: a supplier's
 * visibility reaches its stores and their products and deals.
 */
export const SUPPLIER_LISTINGS = ['suppliers.', 'stores.', 'products.', 'deals.'] as const satisfies ListingScope[];

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The public listings a successful write through this route can change: their cached answers are
     * dropped here and on every other instance before the client hears back. Other listings keep theirs.
     */
    listings?: readonly ListingScope[];
  }
}

/** A route that writes (any method but GET and HEAD) and the listings it declares it changes. */
export interface ListingWrite {
  method: string;
  url: string;
  listings: readonly ListingScope[];
}

const writesOf = new WeakMap<FastifyInstance, ListingWrite[]>();

/** Every write route declared on `app` since installListingDrops, with its listings (none for most). */
export const listingWrites = (app: FastifyInstance): readonly ListingWrite[] => writesOf.get(app) ?? [];

/**
 * Routes declare `config: { listings: [...] }` beside `access`; this adds the hook that drops those
 * listings after a successful write to the routes declaring some. Installed before the routes are.
 */
export function installListingDrops(app: FastifyInstance, cache: ListingCache): void {
  const writes: ListingWrite[] = [];
  writesOf.set(app, writes);
  // onSend runs after the handler, so after its transaction committed, and before the client hears back.
  const drop: onSendHookHandler = async (req, reply) => {
    if (reply.statusCode < 400) await cache.changed(req.routeOptions.config.listings);
  };
  app.addHook('onRoute', (route) => {
    const listings = route.config?.listings ?? [];
    for (const method of [route.method].flat()) {
      if (method !== 'GET' && method !== 'HEAD') writes.push({ method, url: route.url, listings });
      else if (listings.length) throw new Error(`${method} ${route.url}: a read changes no listing`);
    }
    if (listings.length) route.onSend = [...(route.onSend ? [route.onSend].flat() : []), drop];
  });
}
