/** A delayed queue message that starts a template's waiting notices (notice-gate.ts), apart from the SQS client so the delivery worker reads it without one. */

export interface NoticeFlush {
  template_id: string;
  /** The window whose end the waiting notices waited for (ms, the gate's clock). */
  window_start: number;
}

/** The flush a message body names, if it names one (delivery messages never have `notice_flush`). */
export function noticeFlushOf(body: string): NoticeFlush | undefined {
  try {
    const flush = (JSON.parse(body) as { notice_flush?: Partial<NoticeFlush> }).notice_flush;
    if (typeof flush?.template_id === 'string' && typeof flush.window_start === 'number') {
      return { template_id: flush.template_id, window_start: flush.window_start };
    }
  } catch {
    // not JSON: the delivery worker's own reading makes it a poison message
  }
  return undefined;
}
