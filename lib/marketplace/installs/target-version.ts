import { AppError, validationError } from '../../core/errors.ts';
import { readVersion, type StoredVersion } from '../lifecycle/store.ts';

/**
 * A version a caller names for an install, an upgrade or a contract: one that exists and may be
 * taken (not yanked, not waiting in quarantine). `keep`: the workspace's own installed version,
 * which stays usable after a yank (docs/marketplace.md, "Pinned installs").
 */
export async function takeableVersion(templateId: string, version: string, keep?: string): Promise<StoredVersion> {
  const stored = await readVersion(templateId, version);
  if (!stored || stored.quarantine !== undefined) {
    throw validationError([{ path: 'version', message: `This template has no version ${version}.` }]);
  }
  if (stored.yanked_at !== undefined && version !== keep) {
    throw new AppError(
      'template_yanked',
      `Version ${version} is yanked; it takes no new installs, upgrades or contracts.`,
    );
  }
  return stored;
}
