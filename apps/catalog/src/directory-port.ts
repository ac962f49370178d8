/**
 * Catalog's view of identity's directory: checking that the users and teams a task is assigned to
 * exist, and which of a task's teams a user belongs to. Production asks identity (`users.get` /
 * `teams.get` for each assignee in parallel — assignee lists are short — and `teams.memberships`,
 * with catalog's service credential); tests use a fake.
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
  /**
   * The ids among `teamIds` (1–100) of the teams user `userId` belongs to.
   * @throws {AppError} 503 `identity_unavailable` when identity cannot answer.
   */
  teamsOfUser(userId: string, teamIds: readonly string[]): Promise<string[]>;
}

const identityUnavailable = (cause: unknown) =>
  new AppError(503, 'identity_unavailable', 'The identity service is unavailable; try again shortly.', {
    retryAfter: 1,
    cause,
  });

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
            throw identityUnavailable(error);
          }
        }),
      );
      return assignees.filter((_, i) => !found[i]);
    },
    async teamsOfUser(userId, teamIds) {
      try {
        return (await client.teams.memberships.query({ user_id: userId, team_ids: [...teamIds] })).team_ids;
      } catch (error) {
        throw identityUnavailable(error);
      }
    },
  };
}
