import { expect } from 'vitest';
import type { TestApp } from './app.js';

export interface Answer {
  action: string;
  status: number;
}

/**
 * Plays a random history: its groups one after the other, the actions of a group at the same time,
 * then the jobs they left. The actions that move the clock (`movesClock`) run first in their group:
 * the clock is the world's, and a jump of hours between a webhook's signing and its check would
 * refuse a delivery no real provider could make. Refusals are answers (404, 409...), never a
 * failure of the server: no 5xx.
 * Answers the story (each action and its status) for the messages of the checks that follow.
 */
export async function playHistory<A>(
  t: TestApp,
  groups: A[][],
  run: (action: A) => Promise<void>,
  answers: Answer[],
  movesClock: (action: A) => boolean,
): Promise<string> {
  for (const group of groups) {
    for (const a of group.filter(movesClock)) await run(a);
    await Promise.all(group.filter((a) => !movesClock(a)).map(run));
  }
  await t.app.jobs.drain();
  const story = answers.map((r) => `${r.action} ${r.status}`).join(', ');
  expect(
    answers.filter((r) => r.status >= 500),
    story,
  ).toEqual([]);
  return story;
}
