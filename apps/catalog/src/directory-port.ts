/**
 * Catalog's view of identity's directory: checking that the users and teams a task is assigned to
 * exist. Production asks identity (`users.get` / `teams.get`, catalog's service credential) for each
 * assignee in parallel — assignee lists are short; tests use a fake.
 */
import { AppError, type Assignee, type ErrorObject } from '@runbook/contracts';
import type { IdentityClient } from '@runbook/identity/client';
import { TRPCClientError } from '@trpc/client';

/** Existence checks of identity’s users and teams. */
export interface Directory {
  /**
   * The assignees among `assignees` that do not exist.
   * @throws {AppError} 503 `identity_unavailable` when identity cannot answer.
   */
  findMissing(assignees: readonly Assignee[]): Promise<Assignee[]>;
}

const isNotFound = (error: unknown) =>
  error instanceof TRPCClientError &&
  (error.shape as { errors?: ErrorObject[] } | undefined)?.errors?.[0]?.status === '404';

/** A {@link Directory} over identity's typed client. */
export function createIdentityDirectory(client: IdentityClient): Directory {
  return {
    async findMissing(assignees) {
      const found = await Promise.all(
        assignees.map(async (a) => {
          try {
            await (a.type === 'user' ? client.users.get.query({ id: a.id }) : client.teams.get.query({ id: a.id }));
            return true;
          } catch (error) {
            if (isNotFound(error)) return false;
            throw new AppError(503, 'identity_unavailable', 'The identity service is unavailable; try again shortly.', {
              retryAfter: 1,
              cause: error,
            });
          }
        }),
      );
      return assignees.filter((_, i) => !found[i]);
    },
  };
}
