import type { MarketplaceClient } from '../../../client/marketplace-client.ts';
import type { Review, TemplateDetails } from '../../../client/types/index.ts';

/** What every section of a template's page is drawn from. */
export interface TemplatePageContext {
  client: MarketplaceClient;
  template: TemplateDetails;
  /** The API's address, for the copyable snippet. */
  apiBase: string;
  /** The newest reviews, up to REVIEWS_READ (the rating distribution is drawn from them). */
  reviews: readonly Review[];
  /** Whether `reviews` holds every review the rating counts. */
  allReviews: boolean;
  /** Reads the template again and redraws the page where it is (after an install or a review). */
  redraw(): Promise<void>;
}

/** A section of the page: an element, or nothing when it has nothing to show. */
export type TemplateSection = (context: TemplatePageContext) => Node | null;
