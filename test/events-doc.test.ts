import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEGIN, END, renderEventList } from '../src/jobs/events-doc.js';
import { EVENT_CATALOG } from '../src/jobs/event-types.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('docs/events.md', () => {
  it('lists every event, its payload and its subscribers as the code registers them', () => {
    const doc = readFileSync(new URL('../docs/events.md', import.meta.url), 'utf8');
    const listed = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END) + END.length);
    // When this fails, run `npm run docs:events` and commit the result.
    expect(listed).toBe(renderEventList(t.app.events.subscriptions()));
  });

  it('names events <domain>.<past_tense> and subscribes only to listed events', () => {
    for (const name of Object.keys(EVENT_CATALOG)) expect(name).toMatch(/^[a-z]+\.[a-z_]+$/);
    for (const s of t.app.events.subscriptions()) expect(Object.keys(EVENT_CATALOG)).toContain(s.event);
  });
});
