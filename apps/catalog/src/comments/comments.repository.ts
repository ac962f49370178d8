/** The only code that touches the comments table. */
import { dialectOf, insertReturningId, mysqlOnly, type PageInput, paginate } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { CommentRow, Database } from '../db/database.js';

type Db = Kysely<Database>;

/** A new comment on a runbook (`task_id` null) or one of its tasks. */
export interface NewComment {
  runbook_id: number;
  task_id: number | null;
  author_type: string;
  author_id: string | null;
  body: string;
  created_at: number;
}

/** Inserts a comment; returns its id. */
export const insertComment = (db: Db, comment: NewComment): Promise<number> =>
  insertReturningId(db, 'comments', { ...comment });

/** Comment `id`, or undefined. */
export const findComment = (db: Db, id: number): Promise<CommentRow | undefined> =>
  db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * One page of the comments of a runbook (all of them, or one task's), oldest first.
 * @throws {InvalidCursorError} for a foreign `page.after`.
 */
export function listComments(db: Db, runbookId: number, taskId: number | undefined, page: PageInput) {
  let query = db.selectFrom('comments').selectAll().where('runbook_id', '=', runbookId);
  if (taskId !== undefined) query = query.where('task_id', '=', taskId);
  return paginate(
    query,
    {
      column: 'comments.id',
      key: 'id',
      direction: 'asc',
      idColumn: 'comments.id',
      idKey: 'id',
      seekIndex: mysqlOnly(dialectOf(db), taskId === undefined ? 'comments_runbook' : 'comments_task'),
    },
    page,
  );
}
