//! Floats printed and rounded to a number of digits exactly as Ruby 3.1 does it: the `%f`,
//! `%e` and `%g` directives of `format`/`sprintf` (Puppet's `sprintf` and `String(x, fmt)`
//! are Ruby's, and so are `format` and `%` in modules' Ruby), and `Float#round`, `#floor`
//! and `#ceil` with a number of digits. The one owner in the workspace: puppet-types'
//! conversions and puppet-ruby use these functions.
//!
//! Ruby's printf takes its digits from its own copy of David Gay's `dtoa`, changed in one
//! place: when the quick floating-point estimate of the digits lands within its error bound
//! of a tie (the rest after the last digit is about one half), the last digit is rounded to
//! even, whichever side of the tie the exact binary value lies. So `'%.2f' % 2.675` is
//! `"2.68"` (2.675 is 2.67499999999999982... in binary; C's printf says `"2.67"`) and
//! `'%.2f' % 2.665` is `"2.66"` (2.66500000000000003...). Everywhere else the digits are
//! the correctly rounded ones (ties to even), which is what Rust's formatting gives.
//!
//! ```
//! use puppet_types::printf::{exponential, fixed, general};
//! assert_eq!(fixed(2.675, 2), "2.68");
//! assert_eq!(fixed(2.665, 2), "2.66");
//! assert_eq!(fixed(0.05, 1), "0.1");
//! assert_eq!(fixed(1.005, 2), "1.00");
//! assert_eq!(exponential(125.0, 1), "1.2e+02");
//! assert_eq!(general(0.0001234, 3, false), "0.000123");
//! ```

/// `10^0 ..= 10^22`, the powers of ten a double holds exactly.
const TENS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/// The powers `10^(16 * 2^i)` dtoa scales by.
const BIG_TENS: [f64; 5] = [1e16, 1e32, 1e64, 1e128, 1e256];
/// The most digits dtoa tries to get from floating-point arithmetic alone.
const QUICK_MAX: i32 = 14;

/// Which digits dtoa is asked for.
#[derive(Clone, Copy)]
enum Mode {
    /// `n` significant digits (dtoa's mode 2: `%e`, `%g`).
    Significant(i32),
    /// `n` digits after the decimal point (mode 3: `%f`).
    Fraction(i32),
}

/// What dtoa returns for a finite `x > 0` where its quick estimate ends near a tie.
struct NearTie {
    /// The digits (ASCII), the last one rounded to even.
    digits: Vec<u8>,
    /// The decimal exponent: `x ~ 0.d1d2... * 10^decpt`.
    decpt: i32,
    /// dtoa kept the trailing zeros (an even last digit with the exact value above the tie:
    /// its exact pass rounds down without trimming), so `%g` prints them (`0.08660`).
    keeps_zeros: bool,
}

/// The digits dtoa gives a finite `x > 0` where its quick estimate ends near a tie.
/// `None` where the quick path decides clearly, fails, or does not apply: the digits are
/// then the correctly rounded ones.
fn near_tie_digits(x: f64, mode: Mode) -> Option<NearTie> {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 || biased == 0x7ff {
        return None; // subnormal (correctly rounded there) or not finite
    }
    // dtoa's estimate of floor(log10(x)), too large by one at most when `k_check`.
    let i = biased - 1023;
    let d2 = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023u64 << 52));
    // dtoa's own truncated constants (not LOG10_2): the estimate must be dtoa's.
    #[allow(clippy::approx_constant)]
    let ds = (d2 - 1.5) * 0.289529654602168 + 0.1760912590558 + f64::from(i) * 0.301029995663981;
    let mut k = ds as i32;
    if ds < 0.0 && ds != f64::from(k) {
        k -= 1;
    }
    let mut k_check = true;
    if (0..=22).contains(&k) {
        if x < TENS[k as usize] {
            k -= 1;
        }
        k_check = false;
    }
    let (mut ilim, ilim1) = match mode {
        Mode::Significant(n) => (n.max(1), n.max(1)),
        Mode::Fraction(n) => (n + k + 1, n + k),
    };
    if !(0..=QUICK_MAX).contains(&ilim) {
        return None;
    }
    let mut d = x;
    let mut ieps = 2;
    if k > 0 {
        let mut ds = TENS[(k & 0xf) as usize];
        let mut j = k >> 4;
        if j & 0x10 != 0 {
            j &= 0xf;
            d /= BIG_TENS[4];
            ieps += 1;
        }
        let mut idx = 0;
        while j != 0 {
            if j & 1 != 0 {
                ieps += 1;
                ds *= BIG_TENS[idx];
            }
            j >>= 1;
            idx += 1;
        }
        d /= ds;
    } else if k < 0 {
        let j1 = -k;
        d *= TENS[(j1 & 0xf) as usize];
        let mut j = j1 >> 4;
        let mut idx = 0;
        while j != 0 {
            if j & 1 != 0 {
                ieps += 1;
                d *= BIG_TENS[idx];
            }
            j >>= 1;
            idx += 1;
        }
    }
    if k_check && d < 1.0 && ilim > 0 {
        if ilim1 <= 0 {
            return None;
        }
        ilim = ilim1;
        k -= 1;
        d *= 10.0;
        ieps += 1;
    }
    // The error bound: (ieps * d + 7) units in the last place.
    let mut eps = (f64::from(ieps) * d + 7.0) * f64::powi(2.0, -52);
    if ilim == 0 {
        return None; // one digit or none: decided exactly, no tie rule
    }
    eps *= TENS[(ilim - 1) as usize];
    let mut digits = Vec::with_capacity(ilim as usize);
    let mut n = 1;
    loop {
        let l = d as i64;
        if !(0..=9).contains(&l) {
            return None; // not a digit: leave it to the exact formatting
        }
        d -= l as f64;
        if d == 0.0 {
            ilim = n;
        }
        digits.push(b'0' + l as u8);
        if n == ilim {
            if d > 0.5 + eps || d < 0.5 - eps {
                return None;
            }
            let mut keeps_zeros = false;
            if l & 1 == 1 {
                // Round the odd digit up, carrying through nines.
                while digits.last() == Some(&b'9') {
                    digits.pop();
                }
                match digits.last_mut() {
                    Some(last) => *last += 1,
                    None => {
                        digits.push(b'1');
                        k += 1;
                    }
                }
            } else {
                // The exact value's digits after the ones kept: above one half?
                let exact = format!("{x:.120e}");
                let rest: Vec<u8> = exact
                    .bytes()
                    .take_while(|b| *b != b'e')
                    .filter(u8::is_ascii_digit)
                    .skip(digits.len())
                    .collect();
                keeps_zeros = match rest.split_first() {
                    Some((first, tail)) => {
                        *first > b'5' || (*first == b'5' && tail.iter().any(|b| *b != b'0'))
                    }
                    None => false,
                };
            }
            return Some(NearTie {
                digits,
                decpt: k + 1,
                keeps_zeros,
            });
        }
        d *= 10.0;
        n += 1;
    }
}

/// Ruby's text for a float that is not finite, without sign.
fn not_finite(x: f64) -> String {
    if x.is_nan() { "NaN" } else { "Inf" }.to_string()
}

/// `%.{prec}f` of `x >= 0`, without sign (`Inf`, `NaN` where not finite).
pub fn fixed(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return not_finite(x);
    }
    let Some(NearTie { digits, decpt, .. }) = i32::try_from(prec)
        .ok()
        .and_then(|p| near_tie_digits(x, Mode::Fraction(p)))
    else {
        return format!("{x:.prec$}");
    };
    let digit = |i: i32| -> char {
        usize::try_from(i)
            .ok()
            .and_then(|i| digits.get(i))
            .map_or('0', |b| char::from(*b))
    };
    let mut out = String::new();
    if decpt <= 0 {
        out.push('0');
    } else {
        (0..decpt).for_each(|i| out.push(digit(i)));
    }
    if prec > 0 {
        out.push('.');
        (0..prec as i32).for_each(|i| out.push(digit(decpt + i)));
    }
    out
}

/// The `n` significant digits of a finite `x > 0` (`n >= 1`) and its decimal exponent
/// (`x = d.ddd * 10^exp`), with whether dtoa keeps trailing zeros in them (see [`NearTie`];
/// otherwise it drops them).
fn significant(x: f64, n: usize) -> (Vec<u8>, i32, bool) {
    if let Some(tie) = i32::try_from(n)
        .ok()
        .and_then(|n| near_tie_digits(x, Mode::Significant(n)))
    {
        let mut digits = tie.digits;
        digits.resize(n, b'0');
        return (digits, tie.decpt - 1, tie.keeps_zeros);
    }
    let s = format!("{x:.*e}", n - 1);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits = mant.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0), false)
}

fn push_digits(out: &mut String, digits: &[u8]) {
    digits.iter().for_each(|b| out.push(char::from(*b)));
}

fn push_exponent(out: &mut String, exp: i32) {
    out.push(if exp < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", exp.unsigned_abs()));
}

/// `%.{prec}e` of `x >= 0`, without sign: `1.25e-01`, `1.2e+02`.
pub fn exponential(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return not_finite(x);
    }
    let (digits, exp) = if x == 0.0 {
        (vec![b'0'; prec + 1], 0)
    } else {
        let (d, e, _) = significant(x, prec + 1);
        (d, e)
    };
    let mut out = String::new();
    out.push(char::from(digits[0]));
    if prec > 0 {
        out.push('.');
        push_digits(&mut out, &digits[1..]);
    }
    out.push('e');
    push_exponent(&mut out, exp);
    out
}

/// `%.{prec}g` of `x >= 0`, without sign: `%e` or `%f`, whichever the exponent
/// picks, with `prec` significant digits (at least one); the trailing zeros are dropped
/// (unless dtoa kept them) and with `alt` (`#`) kept, point included.
pub fn general(x: f64, prec: usize, alt: bool) -> String {
    if !x.is_finite() {
        return not_finite(x);
    }
    let p = prec.max(1);
    let (mut digits, exp, keeps_zeros) = if x == 0.0 {
        (vec![b'0'; p], 0, false)
    } else {
        significant(x, p)
    };
    if !alt && !keeps_zeros {
        while digits.len() > 1 && digits.last() == Some(&b'0') {
            digits.pop();
        }
    }
    let mut out = String::new();
    if exp < -4 || exp >= p as i32 {
        out.push(char::from(digits[0]));
        if digits.len() > 1 || alt {
            out.push('.');
            push_digits(&mut out, &digits[1..]);
        }
        out.push('e');
        push_exponent(&mut out, exp);
    } else if exp < 0 {
        out.push_str("0.");
        (0..(-exp - 1)).for_each(|_| out.push('0'));
        push_digits(&mut out, &digits);
    } else {
        // The same digits placed around the point: exp + 1 before it.
        let int_len = exp as usize + 1;
        let int_part = &digits[..int_len.min(digits.len())];
        push_digits(&mut out, int_part);
        (int_part.len()..int_len).for_each(|_| out.push('0'));
        if digits.len() > int_len || alt {
            out.push('.');
            push_digits(&mut out, &digits[int_len.min(digits.len())..]);
        }
    }
    out
}

/// The digits Ruby's `%x` (`%o`, `%b`) prints for a negative number, from the digits of its
/// magnitude in `base` (2, 8 or 16): the two's complement with its infinite leading digits
/// cut to one (`-255` is `f01`, `-1` is `f`, `-8` in octal `70`); the caller puts `..` first.
///
/// ```
/// use puppet_types::printf::twos_complement;
/// assert_eq!(twos_complement("ff", 16), "f01");
/// assert_eq!(twos_complement("1", 16), "f");
/// assert_eq!(twos_complement("10", 8), "70");
/// assert_eq!(twos_complement("101", 2), "1011");
/// ```
pub fn twos_complement(magnitude: &str, base: u32) -> String {
    // base^(n+1) - m: each digit's complement (with one more leading top digit), plus one.
    let mut digits: Vec<u32> = std::iter::once(0)
        .chain(magnitude.chars().filter_map(|c| c.to_digit(base)))
        .map(|d| base - 1 - d)
        .collect();
    for d in digits.iter_mut().rev() {
        if *d + 1 < base {
            *d += 1;
            break;
        }
        *d = 0;
    }
    let top = base - 1;
    let first = digits
        .iter()
        .position(|d| *d != top)
        .unwrap_or(digits.len());
    let keep = first.saturating_sub(1);
    digits[keep..]
        .iter()
        .filter_map(|d| std::char::from_digit(*d, base))
        .collect()
}

/// A negative number's `%x`/`%X`/`%o`/`%b`/`%B` text without a `+` or space flag, as Ruby
/// prints it: `..f01`, with `#` `0x..f01` (octal has no prefix there), the sign digits
/// repeated up to the precision or, with the `0` flag, the width (`%08x` is `..ffff01`).
/// Spaces for the width are the caller's.
pub fn negative_radix(
    magnitude: &str,
    conv: char,
    alt: bool,
    precision: Option<usize>,
    zero_width: Option<usize>,
) -> String {
    let base = match conv {
        'x' | 'X' => 16,
        'o' => 8,
        _ => 2,
    };
    let mut digits = twos_complement(magnitude, base);
    let prefix = match (alt, conv) {
        (false, _) | (_, 'o') => "",
        (_, 'x') => "0x",
        (_, 'X') => "0X",
        (_, 'b') => "0b",
        _ => "0B",
    };
    let target = precision.or(zero_width.map(|w| w.saturating_sub(prefix.len())));
    if let Some(t) = target {
        let top = std::char::from_digit(base - 1, base).unwrap_or('f');
        while digits.len() + 2 < t {
            digits.insert(0, top);
        }
    }
    let out = format!("{prefix}..{digits}");
    if conv == 'X' {
        out.to_ascii_uppercase()
    } else {
        out
    }
}

/// The flags, width and precision of one integer directive (`%+08.3x`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntSpec {
    /// `+`: a sign on positive numbers too.
    pub plus: bool,
    /// ` `: a space where a positive number's sign would be.
    pub space: bool,
    /// `#`: the radix prefix (`0x`, `0b`; octal: a leading zero).
    pub alt: bool,
    /// `0`: zeros up to the width (ignored with a precision or `-`).
    pub zero: bool,
    /// `-`: left-justified.
    pub minus: bool,
    pub width: Option<usize>,
    pub precision: Option<usize>,
}

/// An integer's `%d`/`%i`/`%u`/`%x`/`%X`/`%o`/`%b`/`%B` text as Ruby's `format` writes it
/// from its sign and digits (`digits`: the magnitude in the directive's radix, `X`'s in upper
/// case), with the sign written out (a negative number in `%x` without `+` or a space is
/// [`negative_radix`]'s). The C rules: the precision is a minimum number of digits (and a
/// zero precision writes no digit for zero), the `0` flag pads to the width only when there
/// is no precision, `#` writes no prefix for zero and makes octal start with a zero.
///
/// ```
/// use puppet_types::printf::{integer, IntSpec};
/// let spec = |width, precision, zero, alt| IntSpec { width, precision, zero, alt, ..IntSpec::default() };
/// assert_eq!(integer(false, "4", 'd', &spec(Some(5), Some(3), true, false)), "  004");
/// assert_eq!(integer(false, "0", 'd', &spec(None, Some(0), false, false)), "");
/// assert_eq!(integer(false, "4", 'x', &spec(Some(8), None, true, true)), "0x000004");
/// assert_eq!(integer(false, "377", 'o', &spec(None, Some(5), false, true)), "00377");
/// assert_eq!(integer(false, "0", 'x', &spec(None, None, false, true)), "0");
/// assert_eq!(integer(true, "255", 'd', &spec(Some(6), None, true, false)), "-00255");
/// ```
pub fn integer(negative: bool, digits: &str, conv: char, spec: &IntSpec) -> String {
    let is_zero = digits.bytes().all(|b| b == b'0');
    let mut body = match spec.precision {
        Some(0) if is_zero => String::new(),
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits.to_string(),
    };
    let prefix = match conv {
        _ if !spec.alt => "",
        'o' => {
            if !body.starts_with('0') {
                body.insert(0, '0');
            }
            ""
        }
        _ if is_zero => "",
        'x' => "0x",
        'X' => "0X",
        'b' => "0b",
        'B' => "0B",
        _ => "",
    };
    let sign = if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    let width = spec.width.unwrap_or(0);
    let len = sign.len() + prefix.len() + body.len();
    if len >= width {
        return format!("{sign}{prefix}{body}");
    }
    let fill = width - len;
    if spec.minus {
        format!("{sign}{prefix}{body}{}", " ".repeat(fill))
    } else if spec.zero && spec.precision.is_none() {
        format!("{sign}{prefix}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{sign}{prefix}{body}", " ".repeat(fill))
    }
}

/// How a number is taken to a number of digits: `round` (ties as `half:` says), `floor`,
/// `ceil`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// `round` and `round(half: :up)`: ties away from zero.
    HalfUp,
    /// `round(half: :even)`.
    HalfEven,
    /// `round(half: :down)`: ties towards zero.
    HalfDown,
    Floor,
    Ceil,
}

/// `Float#round`, `#floor`, `#ceil` with `ndigits > 0`, as Ruby 3.1 computes them: `x * 10^n`
/// rounded, then corrected where the product lost the decimal the number was written with
/// (`1.005.round(2)` is `1.01`, `0.29.floor(2)` is `0.29`). Digits beyond what a double
/// holds give `x` itself; a number too small for them gives zero.
///
/// ```
/// use puppet_types::printf::{round_digits, Rounding};
/// assert_eq!(round_digits(1.005, 2, Rounding::HalfUp), 1.01);
/// assert_eq!(round_digits(2.665, 2, Rounding::HalfUp), 2.67);
/// assert_eq!(round_digits(0.29, 2, Rounding::Floor), 0.29);
/// assert_eq!(round_digits(18462.65, 2, Rounding::Ceil), 18462.66);
/// ```
pub fn round_digits(x: f64, ndigits: i32, mode: Rounding) -> f64 {
    if x == 0.0 || !x.is_finite() || ndigits <= 0 {
        return x;
    }
    let binexp = frexp_exp(x);
    // Ruby's float_round_overflow: x * 10^n is already a whole number.
    if ndigits
        >= (f64::DIGITS as i32 + 2)
            - if binexp > 0 {
                binexp / 4
            } else {
                binexp / 3 - 1
            }
    {
        return x;
    }
    // float_round_underflow: x is below half of the last digit kept.
    let under = ndigits
        < -(if binexp > 0 {
            binexp / 3 + 1
        } else {
            binexp / 4
        });
    let s = 10f64.powi(ndigits);
    match mode {
        Rounding::Floor => {
            if x > 0.0 && under {
                return 0.0;
            }
            let mul = (x * s).floor();
            let up = (mul + 1.0) / s;
            if up > x {
                mul / s
            } else {
                up
            }
        }
        Rounding::Ceil => {
            if x < 0.0 && under {
                return 0.0;
            }
            // No correction here, unlike floor (Ruby 3.1: `-257.15.ceil(2)` is -257.14).
            (x * s).ceil() / s
        }
        _ => {
            if under {
                return 0.0;
            }
            // Beyond 14 digits Ruby rounds through a Rational: the exact value of the
            // double, rounded, and the nearest double to that.
            if ndigits > 14 {
                return round_exact(x, ndigits as usize, mode);
            }
            round_scaled(x, s, mode) / s
        }
    }
}

/// `x` rounded at `ndigits` decimals from its exact decimal value (Ruby's
/// `rb_flo_round_by_rational`: `0.30000000000000004.round(15)` is `0.3`), ties by `mode`.
fn round_exact(x: f64, ndigits: usize, mode: Rounding) -> f64 {
    // Every double's decimal expansion ends within 1074 fractional digits.
    let exact = format!("{:.1100}", x.abs());
    let Some((whole, frac)) = exact.split_once('.') else {
        return x;
    };
    let (kept, dropped) = frac.split_at(ndigits.min(frac.len()));
    let first = dropped.bytes().next().map_or(0, |b| b - b'0');
    let rest_zero = dropped.bytes().skip(1).all(|b| b == b'0');
    let mut digits: Vec<u8> = whole.bytes().chain(kept.bytes()).collect();
    let last_odd = digits.last().is_some_and(|d| (d - b'0') % 2 == 1);
    let up = match mode {
        Rounding::HalfEven => first > 5 || (first == 5 && (!rest_zero || last_odd)),
        Rounding::HalfDown => first > 5 || (first == 5 && !rest_zero),
        _ => first >= 5,
    };
    if up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - kept.len();
    let text = format!(
        "{}.{}",
        String::from_utf8_lossy(&digits[..split]),
        String::from_utf8_lossy(&digits[split..])
    );
    let r: f64 = text.parse().unwrap_or(x.abs());
    if x < 0.0 {
        -r
    } else {
        r
    }
}

/// `Float#round` with no digits (`half:` as `mode`): the whole number, as a float.
pub fn round_whole(x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Floor => x.floor(),
        Rounding::Ceil => x.ceil(),
        _ => round_scaled(x, 1.0, mode),
    }
}

/// Ruby's `round_half_up`, `round_half_down`, `round_half_even` of `x` scaled by `s`.
fn round_scaled(x: f64, s: f64, mode: Rounding) -> f64 {
    let xs = x * s;
    match mode {
        Rounding::HalfDown => {
            let mut f = xs.round();
            if x > 0.0 && (f - 0.5) / s >= x {
                f -= 1.0;
            } else if x < 0.0 && (f + 0.5) / s <= x {
                f += 1.0;
            }
            f
        }
        Rounding::HalfEven => {
            if x > 0.0 {
                let f = xs.floor();
                let d = xs - f;
                if d > 0.5 {
                    f + 1.0
                } else if d == 0.5 || (f + 0.5) / s <= x {
                    f + f % 2.0
                } else {
                    f
                }
            } else if x < 0.0 {
                let f = xs.ceil();
                let d = f - xs;
                if d > 0.5 {
                    f - 1.0
                } else if d == 0.5 || (f - 0.5) / s >= x {
                    f - (-f) % 2.0
                } else {
                    f
                }
            } else {
                xs
            }
        }
        _ => {
            let mut f = xs.round();
            if s == 1.0 {
                return f;
            }
            if x > 0.0 && (f + 0.5) / s <= x {
                f += 1.0;
            } else if x < 0.0 && (f - 0.5) / s >= x {
                f -= 1.0;
            }
            f
        }
    }
}

/// The exponent `frexp` gives: `x = m * 2^e` with `0.5 <= |m| < 1`.
fn frexp_exp(x: f64) -> i32 {
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: normalise first.
        return frexp_exp(x * f64::powi(2.0, 54)) - 54;
    }
    biased - 1022
}
