import { AppError } from '../../core/errors.ts';

/** No new installs or contracts of a template whose every version is yanked. */
export function refuseYanked(template: { all_yanked?: boolean }): void {
  if (template.all_yanked === true) {
    throw new AppError(
      'template_yanked',
      'Every version of this template is yanked; it takes no new installs or contracts.',
    );
  }
}
