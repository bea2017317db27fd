/** Why a text is not a value of some type; the analyzer turns it into a positioned error. */
export interface Invalid {
  readonly invalid: string;
}
