// Modifier rules: how many choices a group takes, counted as the sum of the chosen
// options' quantities, and how often one option may be taken. Pure, free of Node and of the DOM:
// sync, the reads and guest orders on the server, and the guest page's product dialog and cart in
// the browser run these same functions, so what a group accepts is decided in one place.

/** An option taken without a rule of its own may be taken this often (the order line's own cap). */
export const MAX_OPTION_QUANTITY = 99;

export interface GroupRules {
  minSelections: number;
  /** null: no limit. */
  maxSelections: number | null;
  /** null: up to MAX_OPTION_QUANTITY. */
  maxQuantityPerOption: number | null;
}

/** A group as sync receives it, as it is stored or published (older ones carry no rules), or as the guest menu shows it. */
export interface RuleSource {
  type: string;
  isRequired: boolean;
  minSelections?: number;
  maxSelections?: number | null;
  maxQuantityPerOption?: number | null;
}

/**
 * The rules a group has: single_choice's are fixed by isRequired, remove_ingredients never
 * requires a choice, and a group stored or published before rules existed takes its type's defaults.
 */
export function rulesOf(group: RuleSource): GroupRules {
  const maxQuantityPerOption = group.maxQuantityPerOption ?? null;
  if (group.type === 'single_choice') return { minSelections: group.isRequired ? 1 : 0, maxSelections: 1, maxQuantityPerOption };
  return {
    minSelections: group.type === 'remove_ingredients' ? 0 : (group.minSelections ?? 0),
    maxSelections: group.maxSelections ?? null,
    maxQuantityPerOption,
  };
}

/**
 * A group's own fields, its rules filled in, as every copy of a group carries them (the menu read,
 * `carta pull`'s sync body, a restored row): everything but its id and its options.
 */
export function groupFields<G extends RuleSource & { name: string; sortOrder: number; translations: unknown }>(group: G) {
  const { name, type, isRequired, sortOrder, translations } = group;
  return { name, type: type as G['type'], isRequired, ...rulesOf(group), sortOrder, translations: translations as G['translations'] };
}

/**
 * A synced group's rules, with a warning for every fixed value sent that differs from it and the
 * per-item error of rules no order could meet. `options` counts the options kept (those whose
 * ingredient is known), `defaults` how many of them are isDefault.
 */
export function syncRules(
  group: RuleSource & { name: string },
  options: number,
  defaults: number,
): { rules: GroupRules; warnings: string[]; error: string | null } {
  const rules = rulesOf(group);
  const label = `modifier group '${group.name}'`;
  const warnings: string[] = [];
  const replaced = (field: 'minSelections' | 'maxSelections') => {
    const sent = group[field];
    if (sent !== undefined && sent !== rules[field]) {
      warnings.push(`${label}: ${field} is always ${rules[field]} for ${group.type}; the ${sent} sent is replaced`);
    }
  };
  if (group.type === 'single_choice') {
    replaced('minSelections');
    replaced('maxSelections');
  } else if (group.type === 'remove_ingredients') {
    replaced('minSelections');
  }
  let error: string | null = null;
  if (rules.maxSelections !== null && rules.minSelections > rules.maxSelections) {
    error = `${label}: minSelections ${rules.minSelections} is greater than maxSelections ${rules.maxSelections}`;
  } else if (group.type !== 'single_choice' && rules.minSelections > options * (rules.maxQuantityPerOption ?? MAX_OPTION_QUANTITY)) {
    // single_choice's minimum follows isRequired, and a required group whose options were all
    // skipped for unknown ingredients stays a warning (the product is still saved).
    error = `${label}: minSelections ${rules.minSelections} is more than its ${options} option(s) can give`;
  } else if (group.type === 'single_choice' && defaults > 1) {
    error = `${label}: at most one option of a single_choice group may be isDefault (got ${defaults})`;
  }
  return { rules, warnings, error };
}

/**
 * What an order line breaks of one group's rules, as the tails of errors[] entries
 * (`choose at least 2 (got 1)`); `quantities` holds each chosen option's name and summed quantity.
 */
export function ruleBreaches(group: RuleSource, quantities: ReadonlyMap<string, { name: string; quantity: number }>): string[] {
  const rules = rulesOf(group);
  const breaches: string[] = [];
  let total = 0;
  for (const { quantity } of quantities.values()) total += quantity;
  if (total < rules.minSelections) breaches.push(`choose at least ${rules.minSelections} (got ${total})`);
  if (rules.maxSelections !== null && total > rules.maxSelections) breaches.push(`choose at most ${rules.maxSelections} (got ${total})`);
  const perOption = rules.maxQuantityPerOption ?? MAX_OPTION_QUANTITY;
  for (const { name, quantity } of quantities.values()) {
    if (quantity > perOption) breaches.push(`'${name}' at most ${perOption} time(s) (got ${quantity})`);
  }
  return breaches;
}

/** An order line's choice: an option and how often it is taken (1 when not said, as the order body allows). */
export interface ChosenOption {
  optionId: string;
  quantity?: number;
}

/** A group with its options, as the published menu and the guest menu both carry them. */
export interface RuleGroup extends RuleSource {
  id: string;
  options: readonly { id: string }[];
}

const NOTHING_CHOSEN: ReadonlyMap<string, { name: string; quantity: number }> = new Map();

/**
 * What an order line breaks of its product's groups' rules (ruleBreaches), group by group in the
 * product's order: each chosen option counted in its group, the quantities of one option summed.
 * `nameOf` names an option in a breach. An option of no group is not counted here: the caller says
 * it is not the product's.
 */
export function lineBreaches<G extends RuleGroup>(
  groups: readonly G[],
  chosen: readonly ChosenOption[],
  nameOf: (option: G['options'][number]) => string,
): { group: G; breach: string }[] {
  const owner = new Map<string, { group: G; option: G['options'][number] }>();
  for (const group of groups) for (const option of group.options) owner.set(option.id, { group, option });
  const perGroup = new Map<G, Map<string, { name: string; quantity: number }>>();
  for (const c of chosen) {
    const found = owner.get(c.optionId);
    if (!found) continue;
    let quantities = perGroup.get(found.group);
    if (!quantities) perGroup.set(found.group, (quantities = new Map()));
    const quantity = c.quantity ?? 1;
    const taken = quantities.get(c.optionId);
    if (taken) taken.quantity += quantity;
    else quantities.set(c.optionId, { name: nameOf(found.option), quantity });
  }
  return groups.flatMap((group) => ruleBreaches(group, perGroup.get(group) ?? NOTHING_CHOSEN).map((breach) => ({ group, breach })));
}

/** Whether a line's options meet every group's rules (the guest page's cart, after a publish). */
export function meetsRules(groups: readonly RuleGroup[], chosen: readonly ChosenOption[]): boolean {
  return lineBreaches(groups, chosen, (o) => o.id).length === 0;
}

/** How often one option of the group may be taken: its own cap, never more than the group takes. */
export function optionCap(group: RuleSource): number {
  const rules = rulesOf(group);
  return Math.min(rules.maxQuantityPerOption ?? MAX_OPTION_QUANTITY, rules.maxSelections ?? MAX_OPTION_QUANTITY);
}

/** The sum of the quantities chosen in the group (option id to quantity): what its rules count. */
export function chosenIn(group: RuleGroup, quantities: ReadonlyMap<string, number>): number {
  return group.options.reduce((sum, o) => sum + (quantities.get(o.id) ?? 0), 0);
}

/** The fewest and the most choices the group can take: its maxSelections, or fewer when its options cannot give more. */
export function choiceRange(group: RuleGroup): { min: number; max: number | null } {
  const rules = rulesOf(group);
  const all = group.options.length * optionCap(group);
  return { min: rules.minSelections, max: rules.maxSelections === null ? null : Math.min(rules.maxSelections, all) };
}

/** How many more choices the group takes now (Infinity without a limit). */
export function roomIn(group: RuleGroup, quantities: ReadonlyMap<string, number>): number {
  return (rulesOf(group).maxSelections ?? Infinity) - chosenIn(group, quantities);
}

/**
 * The options preselected when a dish opens: each isDefault option that can be chosen, once, while
 * its group has room (a venue's defaults beyond maxSelections are not all taken). A required single
 * choice without a usable default starts on its first usable option: one tap fewer, and the line
 * can be added at once; the guest still sees the choice and can change it.
 */
export function defaultQuantities(
  groups: readonly (RuleGroup & { options: readonly { id: string; isDefault: boolean }[] })[],
  usable: (optionId: string) => boolean,
): Map<string, number> {
  const quantities = new Map<string, number>();
  for (const group of groups) {
    const rules = rulesOf(group);
    let room = rules.maxSelections ?? Infinity;
    for (const o of group.options) {
      if (room > 0 && o.isDefault && usable(o.id)) {
        quantities.set(o.id, 1);
        room -= 1;
      }
    }
    if (group.type === 'single_choice' && rules.minSelections > 0 && chosenIn(group, quantities) === 0) {
      const first = group.options.find((o) => usable(o.id));
      if (first) quantities.set(first.id, 1);
    }
  }
  return quantities;
}
