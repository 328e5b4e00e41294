// supabase/functions/.env as the CLI (godotenv) reads it for functions' secrets.
import { describe, expect, it } from 'vitest';
import { parseEnvFile, userSecrets } from '@tend/supabase-local/testing';

describe('parseEnvFile', () => {
  it('reads plain, quoted, exported and commented lines', () => {
    expect(
      parseEnvFile(
        [
          '# a comment',
          'PLAIN=value',
          'SPACED = padded   # trailing comment',
          'export EXPORTED=yes',
          'DOUBLE="two words # not a comment"',
          'ESCAPED="line1\\nline2"',
          "SINGLE='kept \\n as is'",
          'EMPTY=',
          'not a variable line',
          '',
        ].join('\n'),
      ),
    ).toEqual({
      PLAIN: 'value',
      SPACED: 'padded',
      EXPORTED: 'yes',
      DOUBLE: 'two words # not a comment',
      ESCAPED: 'line1\nline2',
      SINGLE: 'kept \\n as is',
      EMPTY: '',
    });
  });

  it('skips SUPABASE_ names, as `supabase secrets set` does, and says so', () => {
    const warnings: string[] = [];
    expect(userSecrets({ FROM_CONFIG: 'c', SUPABASE_URL: 'x' }, undefined, (m) => warnings.push(m))).toEqual({
      FROM_CONFIG: 'c',
    });
    expect(warnings).toEqual(['Env name cannot start with SUPABASE_, skipping: SUPABASE_URL']);
  });
});
