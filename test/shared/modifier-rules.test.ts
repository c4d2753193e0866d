import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  choiceRange,
  chosenIn,
  defaultQuantities,
  lineBreaches,
  meetsRules,
  optionCap,
  roomIn,
  ruleBreaches,
  rulesOf,
  syncRules,
  type RuleSource,
} from '../../src/shared/modifier-rules.js';

// The modifier rules as one definition: sync, the reads and guest orders on the
// server, and the guest page's product dialog and cart in the browser all run these functions.
// Through the routes: test/menu/modifier-rules.test.ts; in Chromium: test/guest-page/modifier-rules.test.ts.

/** A group of `options` options o0, o1, ..., add_ingredients unless said. */
const group = (rules: Partial<RuleSource> & { name?: string }, options = 4, defaults: string[] = []) => ({
  id: rules.name ?? 'g',
  name: 'Sauces',
  type: 'add_ingredients',
  isRequired: false,
  ...rules,
  options: Array.from({ length: options }, (_, i) => ({ id: `o${i}`, name: `Option ${i}`, isDefault: defaults.includes(`o${i}`) })),
});

describe('rulesOf', () => {
  it('gives a group stored or published before modifier rules its type defaults', () => {
    assert.deepEqual(rulesOf({ type: 'single_choice', isRequired: true }), {
      minSelections: 1,
      maxSelections: 1,
      maxQuantityPerOption: null,
    });
    assert.deepEqual(rulesOf({ type: 'single_choice', isRequired: false }), {
      minSelections: 0,
      maxSelections: 1,
      maxQuantityPerOption: null,
    });
    assert.deepEqual(rulesOf({ type: 'add_ingredients', isRequired: false }), {
      minSelections: 0,
      maxSelections: null,
      maxQuantityPerOption: null,
    });
    assert.deepEqual(rulesOf({ type: 'remove_ingredients', isRequired: false, minSelections: 3 }), {
      minSelections: 0,
      maxSelections: null,
      maxQuantityPerOption: null,
    });
  });
});

describe('syncRules', () => {
  it('replaces the fixed values of single_choice and remove_ingredients, with a warning each', () => {
    const single = syncRules({ name: 'Size', type: 'single_choice', isRequired: true, minSelections: 2, maxSelections: 1 }, 2, 1);
    assert.deepEqual(single.rules, { minSelections: 1, maxSelections: 1, maxQuantityPerOption: null });
    assert.deepEqual(single.warnings, ["modifier group 'Size': minSelections is always 1 for single_choice; the 2 sent is replaced"]);
    assert.equal(single.error, null);
    const removal = syncRules({ name: 'Without', type: 'remove_ingredients', isRequired: false, minSelections: 1 }, 3, 0);
    assert.equal(removal.rules.minSelections, 0);
    assert.equal(removal.warnings.length, 1);
  });

  it('makes rules no order could meet an error', () => {
    const error = (g: Partial<RuleSource>, options = 3, defaults = 0) =>
      syncRules({ name: 'Sauces', type: 'add_ingredients', isRequired: false, ...g }, options, defaults).error;
    assert.match(error({ minSelections: 3, maxSelections: 2 }) ?? '', /minSelections 3 is greater than maxSelections 2/);
    assert.match(error({ minSelections: 4, maxQuantityPerOption: 1 }) ?? '', /more than its 3 option\(s\) can give/);
    assert.equal(error({ minSelections: 4, maxQuantityPerOption: 2 }), null, 'three options taken twice give six');
    assert.match(error({ type: 'single_choice' }, 3, 2) ?? '', /at most one option of a single_choice group may be isDefault/);
    assert.equal(error({ type: 'single_choice', isRequired: true }, 0), null, 'a required choice whose options were all skipped is saved');
  });
});

describe('ruleBreaches and lineBreaches', () => {
  it('holds an option without its own cap to 99', () => {
    const chosen = new Map([['a', { name: 'A', quantity: 100 }]]);
    assert.deepEqual(ruleBreaches({ type: 'add_ingredients', isRequired: false }, chosen), ["'A' at most 99 time(s) (got 100)"]);
  });

  it("checks each group of a line in the product's order, summing an option's quantities", () => {
    const options = (...ids: string[]) => ids.map((id) => ({ id, name: id.toUpperCase() }));
    const size = { id: 'size', type: 'single_choice', isRequired: true, options: options('regular', 'large') };
    const sauces = {
      id: 'sauces',
      type: 'add_ingredients',
      isRequired: false,
      minSelections: 2,
      maxQuantityPerOption: 1,
      options: options('ketchup', 'mayo'),
    };
    const breaches = lineBreaches(
      [size, sauces],
      [{ optionId: 'mayo', quantity: 1 }, { optionId: 'large' }, { optionId: 'mayo' }, { optionId: 'unknown', quantity: 5 }],
      (o) => o.name,
    );
    assert.deepEqual(
      breaches.map((b) => `${b.group.id}: ${b.breach}`),
      ["sauces: 'MAYO' at most 1 time(s) (got 2)"],
      'a quantity left out is 1; an option of no group is not counted',
    );
    assert.deepEqual(
      lineBreaches([size, sauces], [{ optionId: 'ketchup' }], (o) => o.name).map((b) => `${b.group.id}: ${b.breach}`),
      ['size: choose at least 1 (got 0)', 'sauces: choose at least 2 (got 1)'],
      'each group in order, a group with nothing chosen too',
    );
  });

  it('meets the rules exactly when no group is breached', () => {
    const sauces = group({ minSelections: 2, maxSelections: 3, maxQuantityPerOption: 2 });
    assert.equal(meetsRules([sauces], [{ optionId: 'o0', quantity: 2 }]), true);
    assert.equal(meetsRules([sauces], [{ optionId: 'o0', quantity: 1 }]), false, 'too few');
    assert.equal(meetsRules([sauces], [{ optionId: 'o0', quantity: 3 }]), false, 'one option too often');
    assert.equal(
      meetsRules(
        [sauces],
        [
          { optionId: 'o0', quantity: 2 },
          { optionId: 'o1', quantity: 2 },
        ],
      ),
      false,
      'too many in all',
    );
    assert.equal(meetsRules([group({ type: 'single_choice', isRequired: true })], []), false, 'a required choice left out');
    assert.equal(meetsRules([group({ type: 'single_choice', isRequired: false })], []), true);
  });
});

describe('what a group allows', () => {
  it('caps one option by its own limit and by its group', () => {
    assert.equal(optionCap(group({})), 99);
    assert.equal(optionCap(group({ maxQuantityPerOption: 3 })), 3);
    assert.equal(optionCap(group({ maxQuantityPerOption: 3, maxSelections: 2 })), 2);
    assert.equal(optionCap(group({ type: 'single_choice', isRequired: true, maxQuantityPerOption: 5 })), 1);
  });

  it('says the fewest and the most choices, no more than the options can give', () => {
    assert.deepEqual(choiceRange(group({ minSelections: 2, maxSelections: 3 })), { min: 2, max: 3 });
    assert.deepEqual(choiceRange(group({ maxSelections: 10, maxQuantityPerOption: 1 }, 2)), { min: 0, max: 2 });
    assert.deepEqual(choiceRange(group({ minSelections: 1 })), { min: 1, max: null });
    assert.deepEqual(choiceRange(group({ type: 'single_choice', isRequired: true })), { min: 1, max: 1 });
  });

  it('counts the quantities chosen in the group, and the room left', () => {
    const quantities = new Map([
      ['o0', 2],
      ['o1', 1],
      ['other', 5],
    ]);
    assert.equal(chosenIn(group({}), quantities), 3);
    assert.equal(roomIn(group({ maxSelections: 4 }), quantities), 1);
    assert.equal(roomIn(group({}), quantities), Infinity);
  });
});

describe('defaultQuantities', () => {
  it('preselects the defaults that can be chosen, once each, within the group', () => {
    const withDefaults = (rules: Partial<RuleSource>) => group(rules, 4, ['o0', 'o1', 'o2']);
    assert.deepEqual(
      [...defaultQuantities([withDefaults({})], () => true)],
      [
        ['o0', 1],
        ['o1', 1],
        ['o2', 1],
      ],
    );
    assert.deepEqual(
      [...defaultQuantities([withDefaults({ maxSelections: 2 })], () => true)],
      [
        ['o0', 1],
        ['o1', 1],
      ],
      'no more than the group takes',
    );
    assert.deepEqual(
      [...defaultQuantities([withDefaults({})], (id) => id !== 'o0')],
      [
        ['o1', 1],
        ['o2', 1],
      ],
      'not a sold-out one',
    );
  });

  it('starts a required single choice on its default, else on its first option that can be chosen', () => {
    const size = (defaultId: string | null, isRequired = true) =>
      group({ type: 'single_choice', isRequired }, 4, defaultId === null ? [] : [defaultId]);
    assert.deepEqual([...defaultQuantities([size('o2')], () => true)], [['o2', 1]], 'its default');
    assert.deepEqual([...defaultQuantities([size(null)], () => true)], [['o0', 1]], 'no default: the first');
    assert.deepEqual(
      [...defaultQuantities([size('o0')], (id) => id !== 'o0')],
      [['o1', 1]],
      'a sold-out default: the first that can be chosen',
    );
    assert.deepEqual([...defaultQuantities([size(null)], () => false)], [], 'nothing can be chosen: nothing chosen');
    assert.deepEqual([...defaultQuantities([size(null, false)], () => true)], [], 'an optional one starts on "None"');
  });
});
