import { describe, expect, it } from 'vitest';
import { notAttachedLine, notAttachedNote, splitNotAttached } from '../../supabase/functions/_shared/not-attached.ts';

describe('refused files of a mailed message', () => {
  it('names them on the last line for the team, and a customer reads the message without it', () => {
    const line = notAttachedLine([
      { name: 'setup.exe', why: 'type' },
      { name: 'huge.pdf', why: 'size' },
    ]);
    expect(line).toBe('\n\n[Not attached: setup.exe (file type not accepted); huge.pdf (over 10 MB)]');
    expect(splitNotAttached(`Here you go.${line}`)).toEqual({
      text: 'Here you go.',
      refused: ['setup.exe (file type not accepted)', 'huge.pdf (over 10 MB)'],
    });
  });

  it('leaves a message without the line as it is, also one that only quotes such a line mid-text', () => {
    expect(splitNotAttached('Hello')).toEqual({ text: 'Hello', refused: [] });
    const quoted = 'See\n\n[Not attached: a.exe (file type not accepted)]\nbelow';
    expect(splitNotAttached(quoted)).toEqual({ text: quoted, refused: [] });
  });

  it('counts beyond the ten it names', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ name: `f${i}.exe`, why: 'type' as const }));
    const { refused } = splitNotAttached(`x${notAttachedLine(many)}`);
    expect(refused.at(-1)).toBe('and 2 more');
    expect(notAttachedNote(refused)).toMatch(/^12 files were not attached: f0\.exe \(file type not accepted\);/);
  });

  it('tells the requester in a sentence', () => {
    expect(notAttachedNote([])).toBeNull();
    expect(notAttachedNote(['virus.exe (file type not accepted)'])).toBe(
      '1 file was not attached: virus.exe (file type not accepted). Add files to a reply here instead.',
    );
  });
});
