import { describe, expect, it } from 'vitest';
import { cutSubject, withRest } from '../../supabase/functions/_shared/long-subject.ts';

describe('cutSubject', () => {
  it('keeps a subject that fits, trimmed', () => {
    expect(cutSubject('  Printer jams  ', 20)).toEqual({ subject: 'Printer jams', rest: '' });
    expect(cutSubject('x'.repeat(20), 20)).toEqual({ subject: 'x'.repeat(20), rest: '' });
  });

  it('cuts after the last whole word that fits and keeps the rest', () => {
    expect(cutSubject('The printer on floor two jams', 20)).toEqual({
      subject: 'The printer on floor',
      rest: 'two jams',
    });
    // A word that would end past the limit moves whole.
    expect(cutSubject('The printer on floors jam', 20)).toEqual({ subject: 'The printer on', rest: 'floors jam' });
  });

  it('cuts inside a word only when it is longer than the limit, never through a character', () => {
    expect(cutSubject('abcdefghijklmnopqrstuvwxyz', 10)).toEqual({ subject: 'abcdefghij', rest: 'klmnopqrstuvwxyz' });
    // An emoji is two UTF-16 units: the cut does not split it.
    const { subject, rest } = cutSubject(`${'a'.repeat(9)}😀bc`, 10);
    expect(subject).toBe('a'.repeat(9));
    expect(rest).toBe('😀bc');
  });

  it('loses nothing: subject and rest hold every word', () => {
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const { subject, rest } = cutSubject(long);
    expect(subject.length).toBeLessThanOrEqual(200);
    expect(`${subject} ${rest}`).toBe(long);
  });
});

describe('withRest', () => {
  it('puts the rest at the top of the message, or is the message when there was none', () => {
    expect(withRest('two jams', 'Since Monday.')).toBe('two jams\n\nSince Monday.');
    expect(withRest('two jams', '  ')).toBe('two jams');
  });
});
