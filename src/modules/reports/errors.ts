import { DomainError } from '../../errors.js';

/** The refusals of the reports module, worded once. */
export const reportErrors = {
  /** The contract's rule: colleagues' time without their money. */
  moneyVisibilityRequired: (userId: string) =>
    new DomainError(
      'money_visibility_required',
      `This report would span other members' time, and this token may not see what it is worth. Narrow it to your own entries (userIds=${userId}), or mint a token with money visibility.`,
    ),
  sameSubGroup: () => new DomainError('invalid', 'subGroupBy: must differ from groupBy.', { field: 'subGroupBy' }),
  rangeTooLong: (days: number) => new DomainError('invalid', `to: at most ${days} days after from; split longer ranges.`, { field: 'to' }),
};
