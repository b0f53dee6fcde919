import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, loadConfig } from '../src/config.js';
import { projectRoot } from './helpers/child-server.js';

// Every variable of the configuration schema is documented where an operator looks for it.

const example = readFileSync(`${projectRoot}/.env.example`, 'utf8');
const readme = readFileSync(`${projectRoot}/README.md`, 'utf8');
const configSection = readme.slice(
  readme.indexOf('\n## Configuration'),
  readme.indexOf('\n## ', readme.indexOf('\n## Configuration') + 1),
);
/** KEY=value lines, set (`KEY=`) or shown commented out (`# KEY=`). */
const lines = [...example.matchAll(/^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, comment, key, value]) => ({
  set: !comment,
  key: key!,
  value: value!,
}));

describe('configuration documents', () => {
  it('.env.example lists every variable, and only those', () => {
    const listed = new Set(lines.map((l) => l.key));
    expect(CONFIG_KEYS.filter((k) => !listed.has(k))).toEqual([]);
    expect([...listed].filter((k) => !CONFIG_KEYS.includes(k))).toEqual([]);
  });

  it('the values .env.example sets are valid and are the defaults', () => {
    const env = Object.fromEntries(lines.filter((l) => l.set).map((l) => [l.key, l.value]));
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });

  it("the README's configuration table names every variable", () => {
    expect(configSection).toContain('| variable |');
    expect(CONFIG_KEYS.filter((k) => !configSection.includes(`\`${k}\``))).toEqual([]);
  });
});
