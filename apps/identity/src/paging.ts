/** Pagination glue shared by identity's list procedures. */
import { AppError } from '@runbook/contracts';
import { InvalidCursorError } from '@runbook/db';

/**
 * Awaits a paginated read, turning a cursor this server did not produce into an error the client can fix.
 * @throws {AppError} 400 `invalid_cursor` (source parameter `page[after]`).
 */
export async function readPage<T>(page: Promise<T>): Promise<T> {
  try {
    return await page;
  } catch (error) {
    if (error instanceof InvalidCursorError) {
      throw new AppError(
        400,
        'invalid_cursor',
        'page[after] is not a cursor from this list; follow links.next or start again from page 1.',
        { source: { parameter: 'page[after]' } },
      );
    }
    throw error;
  }
}
