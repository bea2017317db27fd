/**
 * The house rules of the house plan (shared/ARCHITECTURE.md) that a graph can hold: folders depend on each
 * other one way (no import cycle between folder units), `domain/` and `query/` stay pure, only
 * the CLI reaches the composition root, and SQLite code is reached only from SQLite code and the
 * SQLite wiring (docs/adr/0018-sqlite-seam.md). Rules kept in a test are kept; rules in prose drift.
 *
 * A folder unit is `modules/<name>` for a resource module, the first folder under `src/` otherwise
 * (`db`, `query`, `ingest`, …), and `root` for files directly in `src/`.
 *
 * Type-only imports count. A type is part of a folder's vocabulary: if `a` names a type from `b`
 * and `b` names one from `a`, neither can be read, moved or given a second implementation without
 * the other, which is the coupling this test exists to stop. Erasure at compile time does not
 * change that. Dynamic `import()` counts for the same reason.
 *
 * Test code does not count: `*.test.ts` files and the store contract suites (`*.contract.ts`),
 * which only tests import. A contract suite builds its fixtures through its neighbours' real
 * stores (a site needs a group, a partition needs events) because tests here run on real parts,
 * not fakes; that is a test needing a world to run in, not one folder depending on another.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const SRC = resolve(import.meta.dirname, '..', 'src');

interface ImportEdge {
  from: string;
  to: string;
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    const isSource = entry.name.endsWith('.ts') && !/\.(test|contract)\.ts$/.test(entry.name);
    return isSource ? [path] : [];
  });
}

/** Every import, re-export and dynamic import of a file, relative ones resolved to `src/…` paths. */
function importsOf(file: string): ImportEdge[] {
  const from = relative(SRC, file).split(sep).join('/');
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.map(({ fileName: specifier }) => {
    if (!specifier.startsWith('.')) return { from, to: specifier, specifier };
    const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
    return { from, to: relative(SRC, target).split(sep).join('/'), specifier };
  });
}

function unitOf(path: string): string {
  const parts = path.split('/');
  if (parts.length === 1) return 'root';
  if (parts[0] === 'modules') return `modules/${parts[1]}`;
  return parts[0] as string;
}

const isRelative = (edge: ImportEdge): boolean => edge.specifier.startsWith('.');
const edges = sourceFiles(SRC).flatMap(importsOf);
const internalEdges = edges.filter(isRelative);

/** The folder graph, keeping one file-level import per folder edge as the evidence to report. */
function folderGraph(): Map<string, Map<string, ImportEdge>> {
  const graph = new Map<string, Map<string, ImportEdge>>();
  for (const edge of internalEdges) {
    const [a, b] = [unitOf(edge.from), unitOf(edge.to)];
    if (!graph.has(a)) graph.set(a, new Map());
    if (a !== b && !graph.get(a)?.has(b)) graph.get(a)?.set(b, edge);
  }
  return graph;
}

/** Tarjan's strongly connected components: every component with two or more folders is a cycle. */
function tangledComponents(graph: Map<string, Map<string, ImportEdge>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

/** The shortest cycle through `start` inside its component, as folder steps with their evidence. */
function shortestCycle(graph: Map<string, Map<string, ImportEdge>>, start: string, within: string[]): string {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!within.includes(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, node);
      if (next === start) queue.length = 0;
      else queue.push(next);
    }
  }
  const path = [start];
  for (let node = cameFrom.get(start) as string; node !== start; node = cameFrom.get(node) as string) {
    path.unshift(node);
  }
  path.unshift(start);
  return path
    .slice(1)
    .map((to, i) => {
      const from = path[i] as string;
      const edge = graph.get(from)?.get(to) as ImportEdge;
      return `  ${from} → ${to}   (src/${edge.from} imports '${edge.specifier}')`;
    })
    .join('\n');
}

/**
 * SQLite code: the driver, a `*.sqlite.ts` file, the SQLite dialect (`db/dialects/sqlite*`) and the
 * query compiler to SQLite (`query/compile/sqlite*`).
 */
function isSqliteCode(edge: ImportEdge): boolean {
  return edge.to === 'better-sqlite3' || /\.sqlite\.ts$/.test(edge.to) || /^(db\/dialects|query\/compile)\/sqlite/.test(edge.to);
}

/**
 * Files that may import SQLite code without saying so in their name, each for its reason. Worker
 * entry files keep the `<name>.worker.ts` name startSiblingWorker looks for.
 */
const SQLITE_BY_REASON: Readonly<Record<string, string>> = {
  'db/open.ts': 'opens the configured database: the SQLite file in the data dir, or PostgreSQL at databaseUrl',
  'db/wal-checkpointer.ts': 'starts the checkpointer thread of the SQLite file, which waits for the write lock as the writer\'s connections do',
  'db/wal-checkpointer.worker.ts': 'the thread that copies the WAL back into the SQLite file, on a connection of its own',
  'modules/processes/event-writer.worker.ts': 'the event writer thread, owner of the SQLite write connection (ADR 0005)',
  'modules/alerts/alert-changes.worker.ts': 'the bulk alert change thread, on a SQLite connection of its own',
  'modules/forwarder/forwarder-turns.worker.ts': 'the forwarder\'s thread, on a connection of its own to either database',
};

/** The SQLite wiring: where the container gets the embedded store's implementations. */
const isSqliteWiring = (path: string): boolean => /^wiring\/sqlite[^/]*\.ts$/.test(path);

/** Whether a file is SQLite code itself: its name says so, or it is listed with its reason. */
function speaksSqlite(path: string): boolean {
  return /sqlite/.test(path.slice(path.lastIndexOf('/') + 1)) || path in SQLITE_BY_REASON;
}

/**
 * The seam between SQLite and everything else: an import of SQLite code from a file that is not
 * SQLite code itself, and an import of the SQLite wiring from anywhere but the composition root.
 */
function sqliteSeamViolations(graph: readonly ImportEdge[]): string[] {
  const leaksSqlite = (edge: ImportEdge) => isSqliteCode(edge) && !speaksSqlite(edge.from);
  const bypassesContainer = (edge: ImportEdge) => isSqliteWiring(edge.to) && !['root', 'wiring'].includes(unitOf(edge.from));
  return graph.filter((edge) => leaksSqlite(edge) || bypassesContainer(edge)).map((edge) => `src/${edge.from} imports '${edge.specifier}'`);
}

function violations(units: string[], forbidden: (edge: ImportEdge) => boolean): string[] {
  return edges
    .filter((edge) => units.includes(unitOf(edge.from)) && forbidden(edge))
    .map((edge) => `src/${edge.from} imports '${edge.specifier}'`);
}

describe('architecture', () => {
  it('reads a real import graph', () => {
    // Guards the rules below against passing vacuously because the scan found nothing.
    assert.ok(internalEdges.length > 500, `only ${internalEdges.length} relative imports found`);
  });

  it('has no import cycle between folders', () => {
    const graph = folderGraph();
    const cycles = tangledComponents(graph).map(
      (component) =>
        `{${component.join(', ')}}, for example:\n${shortestCycle(graph, component[0] as string, component)}`,
    );
    assert.deepEqual(cycles, [], `folder import cycles:\n${cycles.join('\n')}`);
  });

  it('keeps domain/ and query/ free of drivers, Fastify and the outer folders', () => {
    const outer = (edge: ImportEdge): boolean =>
      isRelative(edge) && /^(modules|db|http)$/.test(unitOf(edge.to).split('/')[0] as string);
    const infrastructure = (edge: ImportEdge): boolean =>
      /^(better-sqlite3|pg|fastify|@fastify\/)/.test(edge.specifier);
    const found = violations(['domain', 'query'], (edge) => outer(edge) || infrastructure(edge));
    assert.deepEqual(found, []);
  });

  it('keeps the ingest pipeline free of modules/: it declares the sinks and rules it is given', () => {
    const found = violations(['ingest'], (edge) => isRelative(edge) && unitOf(edge.to).startsWith('modules/'));
    assert.deepEqual(found, []);
  });

  it('keeps SQLite code behind the SQLite wiring: services, stores and detect/ see interfaces', () => {
    assert.deepEqual(sqliteSeamViolations(edges), []);
  });

  it('finds a violating edge of the SQLite seam, and lets the allowed ones pass', () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to, specifier: to });
    const forbidden = [
      edge('modules/processes/process-search.service.ts', 'query/compile/sqlite.ts'),
      edge('modules/binaries/binary-search.store.ts', 'db/dialects/sqlite-read-pool.ts'),
      edge('detect/anchors.ts', 'query/compile/sqlite-binary.ts'),
      edge('modules/alerts/alerts.store.ts', 'modules/alerts/alert-query.sqlite.ts'),
      edge('db/pooled-read.ts', 'better-sqlite3'),
      edge('modules/processes/event-store.threaded.ts', 'db/dialects/sqlite.ts'),
      edge('modules/alerts/alerts.service.ts', 'wiring/sqlite-read-stores.ts'),
      edge('cli/serve.ts', 'wiring/sqlite.ts'),
    ];
    assert.deepEqual(sqliteSeamViolations(forbidden), forbidden.map((e) => `src/${e.from} imports '${e.to}'`));
    const allowed = [
      edge('modules/processes/process-search.sqlite.ts', 'better-sqlite3'),
      edge('query/compile/sqlite.ts', 'query/compile/sqlite-binary.ts'),
      edge('db/dialects/sqlite-read-pool.ts', 'db/dialects/sqlite-read.messages.ts'),
      edge('wiring/sqlite-read-stores.ts', 'query/compile/sqlite.ts'),
      edge('wiring/sqlite.ts', 'modules/alerts/alert-query.sqlite.ts'),
      edge('modules/processes/event-writer.worker.ts', 'db/dialects/sqlite.ts'),
      edge('container.ts', 'wiring/sqlite.ts'),
      edge('modules/processes/process-search.service.ts', 'query/analysis.ts'),
    ];
    assert.deepEqual(sqliteSeamViolations(allowed), []);
  });

  it('lists only files that exist and need the exemption', () => {
    const importsSqlite = new Set(edges.filter(isSqliteCode).map((edge) => edge.from));
    const stale = Object.keys(SQLITE_BY_REASON).filter((path) => !importsSqlite.has(path));
    assert.deepEqual(stale, [], 'listed files that import no SQLite code (or no longer exist)');
  });

  it('lets only the CLI import the composition root (main, app, container)', () => {
    const compositionRoot = ['main.ts', 'app.ts', 'container.ts'];
    const everyUnitButCli = [...new Set(internalEdges.map((edge) => unitOf(edge.from)))].filter(
      (unit) => unit !== 'cli' && unit !== 'root',
    );
    const found = violations(everyUnitButCli, (edge) => isRelative(edge) && compositionRoot.includes(edge.to));
    assert.deepEqual(found, []);
  });
});
