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
   * @throws {AppError} 503 `identity_unavailable` when identity cannot answer; 500 when it refuses
   *   (catalog's service credential not accepted).
   */
  teamsOfUser(userId: string, teamIds: readonly string[]): Promise<string[]>;
}

const identityUnavailable = (cause: unknown) =>
  new AppError(503, 'identity_unavailable', 'The identity service is unavailable; try again shortly.', {
    retryAfter: 1,
    cause,
  });

/** Identity answered with a 4xx: it is reachable, and retrying will not help. */
const isClientError = (error: unknown) => {
  const status =
    error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
  return status !== undefined && status >= 400 && status < 500;
};

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
        // A refusal (catalog's credential rejected, say) is a misconfiguration, not an outage, and
        // not the caller's fault either (identity's 401 must not reach them as theirs): 500, logged.
        if (isClientError(error)) {
          throw new AppError(500, 'internal_error', 'Team membership could not be checked.', { cause: error });
        }
        throw identityUnavailable(error);
      }
    },
  };
}
