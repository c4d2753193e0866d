// How guessable a new password is, by zxcvbn-ts with its common and English dictionaries (leaked
// passwords, names, words, keyboard patterns, dates, l33t): refused below "safely unguessable".
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.js';

/** zxcvbn's scale 0-4: 3 is "safely unguessable: moderate protection from an offline slow-hash scenario". */
export const MIN_STRENGTH_SCORE = 3;
// The estimator's work grows fast with length (a 200-character password of l33t-able symbols took
// seconds): the first 64 characters are judged; what follows only adds to the guesses.
const JUDGED_LENGTH = 64;

let estimator: Promise<ZxcvbnFactory> | null = null;

/** The estimator with its dictionaries, built once (about 0.5 s) at the first password set. */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
      maxLength: JUDGED_LENGTH,
    });
  })();
  estimator.catch(() => (estimator = null));
  return estimator;
}

/**
 * What is wrong with a new password, in words for the invite page (the estimator's feedback), or
 * null when it may be used. `userInputs` (the member's email and name, the venue's name) count as
 * words an attacker would try first.
 */
export async function passwordProblem(password: string, userInputs: readonly string[] = []): Promise<string | null> {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  // Each input whole and by its words ("Grace Hopper" -> grace, hopper; an email's local part too).
  const words = userInputs.flatMap((input) => [
    input,
    ...input
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length >= 3),
  ]);
  const result = (await loadEstimator()).check(password, [...words, 'carta', 'console']);
  if (result.score >= MIN_STRENGTH_SCORE) return null;
  const { warning, suggestions } = result.feedback;
  return ['This password is too easy to guess.', warning, ...suggestions].filter(Boolean).join(' ');
}
