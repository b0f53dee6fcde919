import { describe, expect, it } from 'vitest';
import { SETTING_FIELDS } from '../../console/src/resources/settings/setting-fields.js';
import { SETTING_KEYS } from '../../src/modules/settings/settings.definition.js';

// The console's settings page says each value's bounds before the API refuses them: the two must agree.
describe("the console's table of settings", () => {
  it('has every key of the API with its bounds, and no other', () => {
    expect(Object.keys(SETTING_FIELDS).sort()).toEqual([...SETTING_KEYS.keys()].sort());
    for (const [key, schema] of SETTING_KEYS) {
      const api = schema as {
        type: string;
        minimum?: number;
        maximum?: number;
        minLength?: number;
        maxLength?: number;
      };
      const field = SETTING_FIELDS[key as keyof typeof SETTING_FIELDS];
      if (api.type === 'boolean') expect(field, key).toEqual({ kind: 'boolean' });
      else if (api.type === 'string')
        expect(field, key).toEqual({ kind: 'text', minLength: api.minLength, maxLength: api.maxLength });
      else expect(field, key).toMatchObject({ min: api.minimum, max: api.maximum });
    }
  });
});
