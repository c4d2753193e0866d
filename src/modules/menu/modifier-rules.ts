// Modifier rules (decisions 15): how many choices a group takes, counted as the sum of the chosen
// options' quantities, and how often one option may be taken. Pure: sync, reads and guest orders
// share these functions, so what a group accepts is decided in one place.

/** An option taken without a rule of its own may be taken this often (the order line's own cap). */
export const MAX_OPTION_QUANTITY = 99;

export interface GroupRules {
  minSelections: number;
  /** null: no limit. */
  maxSelections: number | null;
  /** null: up to MAX_OPTION_QUANTITY. */
  maxQuantityPerOption: number | null;
}

/** A group as sync receives it, or as it is stored or published (older ones carry no rules). */
interface RuleSource {
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
    // skipped for unknown ingredients stays a warning (spec 4.1 rule 5: the product is still saved).
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
