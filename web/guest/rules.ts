// Modifier rules on the guest page (decisions 15): what each group of the guest menu asks for, in
// words; which options take a stepper; what is preselected; and whether a choice meets the rules
// the server will check. Pure, so the cart runs it under Node in the unit tests too.
import { fill, type UiStrings } from '../../src/modules/guest-page/shared/strings.js';

/** An option taken without a rule of its own may be taken this often (the server's cap, decisions 15). */
export const MAX_OPTION_QUANTITY = 99;

export interface RuleOption {
  id: string;
  isDefault: boolean;
}

/** A group with the rules the guest menu resolved for its type (minSelections, maxSelections...). */
export interface RuleGroup {
  name: string;
  type: string;
  minSelections: number;
  /** null: no limit. */
  maxSelections: number | null;
  /** null: up to MAX_OPTION_QUANTITY. */
  maxQuantityPerOption: number | null;
  options: RuleOption[];
}

/** How often one option of the group may be taken: its own cap, never more than the group's. */
export function optionCap(group: RuleGroup): number {
  if (group.type === 'single_choice') return 1;
  return Math.min(group.maxQuantityPerOption ?? MAX_OPTION_QUANTITY, group.maxSelections ?? MAX_OPTION_QUANTITY);
}

/** Extras that may be taken more than once get a stepper; anything taken once a checkbox or a radio. */
export function takesStepper(group: RuleGroup): boolean {
  return group.type === 'add_ingredients' && optionCap(group) > 1;
}

/** The most choices the group can take: its maxSelections, or less when its options cannot give more. */
function mostChoices(group: RuleGroup): number | null {
  const all = group.options.length * optionCap(group);
  return group.maxSelections === null ? null : Math.min(group.maxSelections, all);
}

/** The rule in words, as the group's legend says it: "Choose 1", "Choose 2–3", "Up to 4", "Optional". */
export function ruleText(group: RuleGroup, t: UiStrings): string {
  const min = group.minSelections;
  const max = mostChoices(group);
  // An optional single choice offers "None" beside its options: one at most goes without saying.
  if (min === 0 && (max === null || group.type === 'single_choice')) return t.ruleOptional;
  if (min === 0) return fill(t.ruleUpTo, { n: max as number });
  if (max === null) return fill(t.ruleAtLeast, { n: min });
  return min >= max ? fill(t.ruleExactly, { n: min }) : fill(t.ruleRange, { min, max });
}

/** The sum of the quantities chosen in the group: what its rules count (decisions 15). */
export function chosenIn(group: RuleGroup, quantities: ReadonlyMap<string, number>): number {
  return group.options.reduce((sum, o) => sum + (quantities.get(o.id) ?? 0), 0);
}

/**
 * What the group still needs, in words naming it ("Sauces: choose at least 2"); null when its rules
 * are met. More than allowed cannot be chosen on the page (its controls stop at the limits).
 */
export function groupNeed(group: RuleGroup, quantities: ReadonlyMap<string, number>, t: UiStrings): string | null {
  const min = group.minSelections;
  if (chosenIn(group, quantities) >= min) return null;
  return min === mostChoices(group) ? fill(t.needExactly, { name: group.name, n: min }) : fill(t.needAtLeast, { name: group.name, n: min });
}

/**
 * The options preselected when the dish opens: each isDefault option that can be chosen, once, while
 * its group has room (a venue's defaults beyond maxSelections are not all taken). A required single
 * choice without a usable default starts on its first usable option (issue 38): one tap fewer, and
 * "Add" is ready at once; the guest still sees the choice and can change it.
 */
export function defaultQuantities(groups: readonly RuleGroup[], usable: (optionId: string) => boolean): Map<string, number> {
  const quantities = new Map<string, number>();
  for (const group of groups) {
    let room = group.maxSelections ?? Infinity;
    for (const o of group.options) {
      if (room > 0 && o.isDefault && usable(o.id)) {
        quantities.set(o.id, 1);
        room -= 1;
      }
    }
    if (group.type === 'single_choice' && group.minSelections > 0 && chosenIn(group, quantities) === 0) {
      const first = group.options.find((o) => usable(o.id));
      if (first) quantities.set(first.id, 1);
    }
  }
  return quantities;
}

/** Whether a cart line's options meet every group's rules (a publish since may have changed them). */
export function meetsRules(groups: readonly RuleGroup[], modifiers: readonly { optionId: string; quantity: number }[]): boolean {
  const quantities = new Map<string, number>();
  for (const m of modifiers) quantities.set(m.optionId, (quantities.get(m.optionId) ?? 0) + m.quantity);
  return groups.every((group) => {
    const total = chosenIn(group, quantities);
    const cap = optionCap(group);
    return (
      total >= group.minSelections &&
      (group.maxSelections === null || total <= group.maxSelections) &&
      group.options.every((o) => (quantities.get(o.id) ?? 0) <= cap)
    );
  });
}
