import { expect } from 'vitest';
import type { TestApp } from './app.js';

export interface Answer {
  action: string;
  status: number;
}

/**
 * Plays a random history: its groups one after the other, the actions of a group at the same time,
 * then the jobs they left. Refusals are answers (404, 409...), never a failure of the server: no 5xx.
 * Answers the story (each action and its status) for the messages of the checks that follow.
 */
export async function playHistory<A>(
  t: TestApp,
  groups: A[][],
  run: (action: A) => Promise<void>,
  answers: Answer[],
): Promise<string> {
  for (const group of groups) await Promise.all(group.map(run));
  await t.app.jobs.drain();
  const story = answers.map((r) => `${r.action} ${r.status}`).join(', ');
  expect(
    answers.filter((r) => r.status >= 500),
    story,
  ).toEqual([]);
  return story;
}
