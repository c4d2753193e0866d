// docs/architecture.md describes the code as it is; this check fails when the two drift apart.
//
// Conventions the doc follows, and this test reads:
// - a folder is named by its full path from the repository root with a trailing slash, in a code
//   span: `src/http/plugins/`. Every folder under src/ is named so (what src/db/migrations/
//   holds is not: it holds files only).
// - a member of the database port (the Database, Queryable and Transaction interfaces of
//   src/db/port.ts) is named in a code span that starts with its name: `writeEpoch` or
//   `writeEpoch(scope?)`.
// - a `src/...` path in a code span names a folder or file that exists.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '../..');
const doc = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

/** Every folder under src/, as `src/a/b/`, except what src/db/migrations/ holds. */
function srcFolders(dir = 'src'): string[] {
  if (dir === 'src/db/migrations') return [];
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const child = `${dir}/${entry.name}`;
      return [`${child}/`, ...srcFolders(child)];
    });
}

const PORT_INTERFACES = new Set(['Database', 'Queryable', 'Transaction']);

/** The members (methods and properties) the port's interfaces declare. */
function portMembers(): string[] {
  const file = path.join(root, 'src/db/port.ts');
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const members = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) || !PORT_INTERFACES.has(statement.name.text)) continue;
    for (const member of statement.members) {
      if (member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) members.add(member.name.text);
    }
  }
  return [...members].sort();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('docs/architecture.md', () => {
  it('names every folder of src/', () => {
    const folders = srcFolders();
    assert.ok(folders.length > 10, 'the walk found the folders of src/');
    const missing = folders.filter((folder) => !doc.includes(`\`${folder}\``));
    assert.deepEqual(missing, [], `name these folders in docs/architecture.md as \`src/.../\`: ${missing.join(', ')}`);
  });

  it('names every member of the database port (src/db/port.ts)', () => {
    const members = portMembers();
    assert.ok(members.includes('query') && members.includes('transaction'), 'the port was parsed');
    const missing = members.filter((name) => !new RegExp(`\`${escape(name)}[\`(]`).test(doc));
    assert.deepEqual(missing, [], `name these port members in docs/architecture.md: ${missing.join(', ')}`);
  });

  it('names only src/ paths that exist', () => {
    const named = [...doc.matchAll(/`(src\/[^`\s]*)`/g)].map((m) => m[1]);
    const gone = [...new Set(named)].filter((p) => !fs.existsSync(path.join(root, p)));
    assert.deepEqual(gone, [], `docs/architecture.md names paths that do not exist: ${gone.join(', ')}`);
  });

  it("lists the modules in lint's order (MODULE_ORDER in eslint.config.js), every module of src/modules/", () => {
    const config = fs.readFileSync(path.join(root, 'eslint.config.js'), 'utf8');
    const declared =
      /const MODULE_ORDER = \[([^\]]*)\]/
        .exec(config)?.[1]
        .match(/'[^']+'/g)
        ?.map((m) => m.slice(1, -1)) ?? [];
    const listed = /```module-order\n([^`]*)```/.exec(doc)?.[1].trim().split(/,\s*/) ?? [];
    assert.deepEqual(listed, declared, 'docs/architecture.md lists the modules as MODULE_ORDER does');
    const modules = fs
      .readdirSync(path.join(root, 'src/modules'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    assert.deepEqual([...declared].sort(), modules, 'MODULE_ORDER names every folder of src/modules/, once');
  });

  it('lists the modules with a surface (index.ts): those another module uses', () => {
    const listed = /```module-surfaces\n([^`]*)```/.exec(doc)?.[1].trim().split(/,\s*/) ?? [];
    const withIndex = fs
      .readdirSync(path.join(root, 'src/modules'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, 'src/modules', e.name, 'index.ts')))
      .map((e) => e.name);
    assert.deepEqual([...listed].sort(), withIndex.sort(), 'docs/architecture.md lists every module with an index.ts');
  });
});
