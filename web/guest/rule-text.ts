// The modifier rules as the product dialog says them: each group's rule in words,
// what a group still needs, and which options take a stepper. The rules themselves are the
// server's own (src/shared/modifier-rules.ts); only the words and the controls are the page's.
import { fill, type UiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { choiceRange, chosenIn, optionCap, type RuleGroup } from '../../src/shared/modifier-rules.js';

/** Extras that may be taken more than once get a stepper; anything taken once a checkbox or a radio. */
export function takesStepper(group: RuleGroup): boolean {
  return group.type === 'add_ingredients' && optionCap(group) > 1;
}

/** The rule in words, as the group's legend says it: "Choose 1", "Choose 2–3", "Up to 4", "Optional". */
export function ruleText(group: RuleGroup, t: UiStrings): string {
  const { min, max } = choiceRange(group);
  // An optional single choice offers "None" beside its options: one at most goes without saying.
  if (min === 0 && (max === null || group.type === 'single_choice')) return t.ruleOptional;
  if (min === 0) return fill(t.ruleUpTo, { n: max as number });
  if (max === null) return fill(t.ruleAtLeast, { n: min });
  return min >= max ? fill(t.ruleExactly, { n: min }) : fill(t.ruleRange, { min, max });
}

/**
 * What the group still needs, in words naming it ("Sauces: choose at least 2"); null when its rules
 * are met. More than allowed cannot be chosen on the page (its controls stop at the limits).
 */
export function groupNeed(group: RuleGroup & { name: string }, quantities: ReadonlyMap<string, number>, t: UiStrings): string | null {
  const { min, max } = choiceRange(group);
  if (chosenIn(group, quantities) >= min) return null;
  return min === max ? fill(t.needExactly, { name: group.name, n: min }) : fill(t.needAtLeast, { name: group.name, n: min });
}
