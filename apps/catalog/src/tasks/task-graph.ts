/** Cycle detection for task predecessors (pure; DESIGN §6: predecessors form a DAG). */

/** A predecessor link: `task_id` waits for `predecessor_id`. */
export interface PredecessorLink {
  task_id: number;
  predecessor_id: number;
}

/**
 * Would giving `taskId` the predecessors `predecessorIds` (replacing its current ones) create a cycle
 * in the graph `links`? Searches breadth-first from the new predecessors back to `taskId`, so the cycle
 * found is a shortest one.
 * @returns the cycle as task ids, starting with `taskId`, each waiting for the next and the last
 *   waiting for `taskId`; or `null` when the graph stays acyclic.
 */
export function findCycle(
  taskId: number,
  predecessorIds: readonly number[],
  links: readonly PredecessorLink[],
): number[] | null {
  const predecessorsOf = new Map<number, number[]>();
  for (const { task_id, predecessor_id } of links) {
    const list = predecessorsOf.get(task_id);
    if (list) list.push(predecessor_id);
    else predecessorsOf.set(task_id, [predecessor_id]);
  }
  // parent.get(n) is the task that waits for n on the search path (null for a new predecessor).
  const parent = new Map<number, number | null>();
  const queue: number[] = [];
  for (const p of [...predecessorIds].sort((a, b) => a - b)) {
    if (p === taskId) return [taskId];
    if (!parent.has(p)) {
      parent.set(p, null);
      queue.push(p);
    }
  }
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as number;
    for (const next of predecessorsOf.get(node) ?? []) {
      if (next === taskId) {
        const path: number[] = [];
        for (let n: number | null | undefined = node; n != null; n = parent.get(n)) path.push(n);
        return [taskId, ...path.reverse()];
      }
      if (!parent.has(next)) {
        parent.set(next, node);
        queue.push(next);
      }
    }
  }
  return null;
}
