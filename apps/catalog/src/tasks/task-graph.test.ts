import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCycle, type PredecessorLink } from './task-graph.js';

/** Kahn's algorithm: true when the links form no cycle. */
function isAcyclic(nodes: number[], links: PredecessorLink[]): boolean {
  const indegree = new Map(nodes.map((n) => [n, 0]));
  for (const l of links) indegree.set(l.task_id, (indegree.get(l.task_id) ?? 0) + 1);
  const ready = nodes.filter((n) => indegree.get(n) === 0);
  let done = 0;
  while (ready.length > 0) {
    const n = ready.pop() as number;
    done++;
    for (const l of links) {
      if (l.predecessor_id !== n) continue;
      const left = (indegree.get(l.task_id) ?? 0) - 1;
      indegree.set(l.task_id, left);
      if (left === 0) ready.push(l.task_id);
    }
  }
  return done === nodes.length;
}

describe('findCycle', () => {
  it('names the cycle a chain would close', () => {
    const links = [
      { task_id: 2, predecessor_id: 1 },
      { task_id: 3, predecessor_id: 2 },
    ];
    expect(findCycle(1, [3], links)).toEqual([1, 3, 2]);
    expect(findCycle(1, [1], links)).toEqual([1]);
    expect(findCycle(3, [1], links)).toBeNull();
  });

  it('returns a real cycle exactly when the updated graph is cyclic', () => {
    const scenario = fc.integer({ min: 2, max: 12 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        // A DAG: tasks only wait for lower-numbered tasks.
        links: fc.uniqueArray(
          fc
            .tuple(fc.integer({ min: 1, max: n }), fc.integer({ min: 1, max: n }))
            .filter(([a, b]) => a !== b)
            .map(([a, b]) => [Math.max(a, b), Math.min(a, b)] as const),
          { selector: ([a, b]) => `${a}:${b}`, maxLength: Math.min(20, (n * (n - 1)) / 2) },
        ),
        task: fc.integer({ min: 1, max: n }),
        predecessors: fc.uniqueArray(fc.integer({ min: 1, max: n }), { maxLength: 4 }),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ n, links: pairs, task, predecessors }) => {
        const links = pairs.map(([task_id, predecessor_id]) => ({ task_id, predecessor_id }));
        const updated = [
          ...links.filter((l) => l.task_id !== task),
          ...predecessors.map((predecessor_id) => ({ task_id: task, predecessor_id })),
        ];
        const nodes = Array.from({ length: n }, (_, i) => i + 1);
        const cycle = findCycle(task, predecessors, links);
        expect(cycle === null).toBe(isAcyclic(nodes, updated));
        if (cycle) {
          expect(cycle[0]).toBe(task);
          expect(new Set(cycle).size).toBe(cycle.length);
          cycle.forEach((from, i) => {
            const to = cycle[(i + 1) % cycle.length];
            expect(updated.some((l) => l.task_id === from && l.predecessor_id === to)).toBe(true);
          });
        }
      }),
    );
  });
});
