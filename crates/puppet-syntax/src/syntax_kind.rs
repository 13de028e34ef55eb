//! The kinds of tokens and nodes in the Puppet concrete syntax tree.
//!
//! One flat enum covers both: tokens (produced by the lexer) come first, nodes (produced by
//! the parser) after `__LAST_TOKEN`. The enum is the contract between the lexer, the parser
//! and the typed AST; it knows nothing of rowan beyond the `Language` glue at the bottom.

/// A token or node kind of the Puppet syntax tree.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
pub enum SyntaxKind {
    // ---- trivia ----
    /// Spaces, tabs, carriage returns and newlines.
    WHITESPACE = 0,
    /// `# ...` to the end of the line.
    COMMENT,
    /// `/* ... */`.
    ML_COMMENT,
    /// The body of a heredoc: the lines after the line holding its `@(TAG)`, up to and
    /// including the end-tag line. The parser treats it as trivia; the typed AST finds it.
    HEREDOC_BODY,

    // ---- punctuation and operators ----
    /// `[` directly after an expression (an access).
    L_BRACK,
    /// `[` after whitespace or at the start (always a list).
    LIST_START,
    R_BRACK,
    L_BRACE,
    /// `{` directly after `?` (a selector body).
    SEL_BRACE,
    R_BRACE,
    /// `(` with something other than blanks before it on its line.
    L_PAREN,
    /// `(` with only blanks before it on its line (never a call).
    WS_L_PAREN,
    R_PAREN,
    EQ,
    PLUS_EQ,
    MINUS_EQ,
    EQ2,
    NEQ,
    MATCH,
    NOMATCH,
    GTEQ,
    GT,
    LTEQ,
    LT,
    FARROW,
    PARROW,
    LSHIFT,
    LLCOLLECT,
    LCOLLECT,
    RSHIFT,
    RRCOLLECT,
    RCOLLECT,
    PLUS,
    MINUS,
    SLASH,
    STAR,
    PERCENT,
    BANG,
    DOT,
    PIPE,
    AT,
    ATAT,
    COLON,
    COMMA,
    SEMI,
    QMARK,
    TILDE,
    /// `->`
    IN_EDGE,
    /// `~>`
    IN_EDGE_SUB,
    /// `<-`
    OUT_EDGE,
    /// `<~`
    OUT_EDGE_SUB,

    // ---- keywords ----
    CASE_KW,
    CLASS_KW,
    DEFAULT_KW,
    DEFINE_KW,
    IF_KW,
    ELSIF_KW,
    ELSE_KW,
    INHERITS_KW,
    NODE_KW,
    AND_KW,
    OR_KW,
    UNDEF_KW,
    FALSE_KW,
    TRUE_KW,
    IN_KW,
    UNLESS_KW,
    FUNCTION_KW,
    TYPE_KW,
    ATTR_KW,
    PRIVATE_KW,
    /// `plan`: a keyword only in tasks mode (Bolt's plans, [`crate::parse_tasks`]).
    PLAN_KW,
    /// `apply`: a keyword only in tasks mode.
    APPLY_KW,

    // ---- words, literals ----
    /// A lower-case name, possibly qualified: `foo`, `foo::bar`, `::foo`.
    NAME,
    /// A bare word that is not a valid name (contains `-`, or starts with `_`).
    BARE_WORD,
    /// A capitalised type name, possibly qualified: `File`, `Foo::Bar`.
    TYPE_NAME,
    /// `$x`, `$::x`, `$a::b`, `$0`.
    VARIABLE,
    /// A number literal (decimal, octal, hex, float).
    NUMBER,
    /// A regular expression literal `/.../`.
    REGEX,
    /// A single-quoted string, quotes included.
    SQ_STRING,
    /// The opening or closing `"` of a double-quoted string.
    DQUOTE,
    /// Literal text inside a double-quoted string (escapes kept raw).
    STRING_TEXT,
    /// `${` opening an interpolated expression.
    INTERP_START,
    /// `}` closing an interpolated expression.
    INTERP_END,
    /// `@(TAG...)`: a heredoc header.
    HEREDOC_HEADER,

    // ---- EPP ----
    /// Literal template text.
    EPP_TEXT,
    /// `<%` or `<%-`.
    EPP_OPEN,
    /// `<%=`.
    EPP_RENDER_OPEN,
    /// `%>`.
    EPP_CLOSE,
    /// `-%>`.
    EPP_CLOSE_TRIM,
    /// `<%# ... %>`.
    EPP_COMMENT,

    /// A character that starts no token.
    ERROR_TOKEN,
    #[doc(hidden)]
    __LAST_TOKEN,

    // ---- nodes ----
    /// The root of a manifest.
    SOURCE_FILE,
    /// The root of an EPP template.
    EPP_FILE,
    /// The root of a standalone expression or type expression parse.
    EXPR_ROOT,
    /// The root of a sub-parse of an interpolating heredoc body.
    HEREDOC_ROOT,
    /// Anything the parser could not make sense of.
    ERROR,
    /// `{ statements }`.
    BLOCK,

    LITERAL,
    STRING_EXPR,
    INTERPOLATION,
    HEREDOC_EXPR,
    NAME_EXPR,
    TYPE_REF,
    VARIABLE_EXPR,
    RESERVED_WORD,
    ARRAY_EXPR,
    HASH_EXPR,
    HASH_ENTRY,
    BINARY_EXPR,
    UNARY_EXPR,
    ASSIGN_EXPR,
    RELATIONSHIP_EXPR,
    ACCESS_EXPR,
    SELECTOR_EXPR,
    SELECTOR_ENTRY,
    PAREN_EXPR,
    /// A named function call: `f(1)`, `include foo`, `f(1) |$x| { }`.
    CALL_EXPR,
    /// The arguments of a call, with or without parentheses.
    ARG_LIST,
    /// `x.f(1) |$y| { }`.
    METHOD_CALL_EXPR,
    LAMBDA,
    PARAM_LIST,
    PARAM,
    /// `>> Type` on a function or lambda.
    RETURN_TYPE,
    IF_EXPR,
    ELSIF_CLAUSE,
    ELSE_CLAUSE,
    UNLESS_EXPR,
    CASE_EXPR,
    CASE_OPTION,
    /// `type { title: attrs; title: attrs }`, with optional `@` / `@@`.
    RESOURCE_EXPR,
    RESOURCE_BODY,
    /// `Type { attrs }`.
    RESOURCE_DEFAULTS_EXPR,
    /// `Type['x'] { attrs }`.
    RESOURCE_OVERRIDE_EXPR,
    ATTRIBUTE_OP,
    /// `* => $hash`.
    ATTRIBUTES_OP,
    COLLECT_EXPR,
    COLLECT_QUERY,
    CLASS_DEF,
    INHERITS_CLAUSE,
    DEFINE_DEF,
    NODE_DEF,
    /// One host matcher of a node definition (dotted name, string, regex or default).
    HOST_MATCH,
    FUNCTION_DEF,
    TYPE_ALIAS,
    TYPE_DEFINITION,
    /// `plan name(params) { ... }` (tasks mode).
    PLAN_DEF,
    /// `apply(targets, options) { ... }` (tasks mode): its arguments and block.
    APPLY_EXPR,
    /// `<%= expr %>`.
    EPP_RENDER_EXPR,
    /// Literal text of a template.
    EPP_RENDER_TEXT,
    /// The `|$x, $y|` header of a template.
    EPP_PARAMS,
    #[doc(hidden)]
    __LAST,
}

use SyntaxKind::*;

impl SyntaxKind {
    /// Is this whitespace, a comment, or a heredoc body (tokens the parser skips)?
    pub fn is_trivia(self) -> bool {
        matches!(self, WHITESPACE | COMMENT | ML_COMMENT | HEREDOC_BODY)
    }

    /// Is this a token kind (as opposed to a node kind)?
    pub fn is_token(self) -> bool {
        (self as u16) < (__LAST_TOKEN as u16)
    }

    /// Is this a keyword?
    pub fn is_keyword(self) -> bool {
        (CASE_KW as u16..=APPLY_KW as u16).contains(&(self as u16))
    }

    /// The keyword kind for a word, if it is one.
    pub fn from_keyword(word: &str) -> Option<SyntaxKind> {
        Some(match word {
            "case" => CASE_KW,
            "class" => CLASS_KW,
            "default" => DEFAULT_KW,
            "define" => DEFINE_KW,
            "if" => IF_KW,
            "elsif" => ELSIF_KW,
            "else" => ELSE_KW,
            "inherits" => INHERITS_KW,
            "node" => NODE_KW,
            "and" => AND_KW,
            "or" => OR_KW,
            "undef" => UNDEF_KW,
            "false" => FALSE_KW,
            "true" => TRUE_KW,
            "in" => IN_KW,
            "unless" => UNLESS_KW,
            "function" => FUNCTION_KW,
            "type" => TYPE_KW,
            "attr" => ATTR_KW,
            "private" => PRIVATE_KW,
            _ => return None,
        })
    }

    /// Puppet's name for a token kind, as its own lexer (`Lexer2`) calls it; used in messages
    /// and for comparing token streams with Puppet's.
    pub fn puppet_token_name(self) -> &'static str {
        match self {
            L_BRACK => "LBRACK",
            LIST_START => "LISTSTART",
            R_BRACK => "RBRACK",
            L_BRACE => "LBRACE",
            SEL_BRACE => "SELBRACE",
            R_BRACE => "RBRACE",
            L_PAREN => "LPAREN",
            WS_L_PAREN => "WSLPAREN",
            R_PAREN => "RPAREN",
            EQ => "EQUALS",
            PLUS_EQ => "APPENDS",
            MINUS_EQ => "DELETES",
            EQ2 => "ISEQUAL",
            NEQ => "NOTEQUAL",
            MATCH => "MATCH",
            NOMATCH => "NOMATCH",
            GTEQ => "GREATEREQUAL",
            GT => "GREATERTHAN",
            LTEQ => "LESSEQUAL",
            LT => "LESSTHAN",
            FARROW => "FARROW",
            PARROW => "PARROW",
            LSHIFT => "LSHIFT",
            LLCOLLECT => "LLCOLLECT",
            LCOLLECT => "LCOLLECT",
            RSHIFT => "RSHIFT",
            RRCOLLECT => "RRCOLLECT",
            RCOLLECT => "RCOLLECT",
            PLUS => "PLUS",
            MINUS => "MINUS",
            SLASH => "DIV",
            STAR => "TIMES",
            PERCENT => "MODULO",
            BANG => "NOT",
            DOT => "DOT",
            PIPE => "PIPE",
            AT => "AT",
            ATAT => "ATAT",
            COLON => "COLON",
            COMMA => "COMMA",
            SEMI => "SEMIC",
            QMARK => "QMARK",
            TILDE => "TILDE",
            IN_EDGE => "IN_EDGE",
            IN_EDGE_SUB => "IN_EDGE_SUB",
            OUT_EDGE => "OUT_EDGE",
            OUT_EDGE_SUB => "OUT_EDGE_SUB",
            CASE_KW => "CASE",
            CLASS_KW => "CLASS",
            DEFAULT_KW => "DEFAULT",
            DEFINE_KW => "DEFINE",
            IF_KW => "IF",
            ELSIF_KW => "ELSIF",
            ELSE_KW => "ELSE",
            INHERITS_KW => "INHERITS",
            NODE_KW => "NODE",
            AND_KW => "AND",
            OR_KW => "OR",
            UNDEF_KW => "UNDEF",
            FALSE_KW | TRUE_KW => "BOOLEAN",
            IN_KW => "IN",
            UNLESS_KW => "UNLESS",
            FUNCTION_KW => "FUNCTION",
            TYPE_KW => "TYPE",
            ATTR_KW => "ATTR",
            PRIVATE_KW => "PRIVATE",
            PLAN_KW => "PLAN",
            APPLY_KW => "APPLY",
            NAME => "NAME",
            BARE_WORD => "WORD",
            TYPE_NAME => "CLASSREF",
            VARIABLE => "VARIABLE",
            NUMBER => "NUMBER",
            REGEX => "REGEX",
            SQ_STRING => "STRING",
            HEREDOC_HEADER => "HEREDOC",
            EPP_TEXT => "RENDER_STRING",
            EPP_RENDER_OPEN => "RENDER_EXPR",
            EPP_CLOSE => "EPP_END",
            EPP_CLOSE_TRIM => "EPP_END_TRIM",
            _ => "OTHER",
        }
    }
}

impl From<SyntaxKind> for rowan::SyntaxKind {
    #[inline]
    fn from(kind: SyntaxKind) -> Self {
        Self(kind as u16)
    }
}

/// The rowan language tag for Puppet trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PuppetLanguage {}

impl rowan::Language for PuppetLanguage {
    type Kind = SyntaxKind;

    // Inline: every step of a walk over a tree asks for kinds (across crates, so only a
    // hint makes it inlinable there without LTO).
    #[inline]
    fn kind_from_raw(raw: rowan::SyntaxKind) -> SyntaxKind {
        assert!(raw.0 < __LAST as u16);
        // SAFETY-free conversion: the enum is repr(u16) and dense from 0 to __LAST.
        ALL_KINDS[raw.0 as usize]
    }

    #[inline]
    fn kind_to_raw(kind: SyntaxKind) -> rowan::SyntaxKind {
        kind.into()
    }
}

/// Every kind, indexed by its discriminant (the enum is dense), so raw kinds convert without
/// `unsafe`.
static ALL_KINDS: [SyntaxKind; __LAST as usize + 1] = {
    let mut out = [WHITESPACE; __LAST as usize + 1];
    let mut i = 0;
    while i <= __LAST as usize {
        out[i] = kind_at(i);
        i += 1;
    }
    out
};

const fn kind_at(i: usize) -> SyntaxKind {
    // Walk the kinds in declaration order; written as a table so it stays in sync with the enum.
    const TABLE: &[SyntaxKind] = &[
        WHITESPACE,
        COMMENT,
        ML_COMMENT,
        HEREDOC_BODY,
        L_BRACK,
        LIST_START,
        R_BRACK,
        L_BRACE,
        SEL_BRACE,
        R_BRACE,
        L_PAREN,
        WS_L_PAREN,
        R_PAREN,
        EQ,
        PLUS_EQ,
        MINUS_EQ,
        EQ2,
        NEQ,
        MATCH,
        NOMATCH,
        GTEQ,
        GT,
        LTEQ,
        LT,
        FARROW,
        PARROW,
        LSHIFT,
        LLCOLLECT,
        LCOLLECT,
        RSHIFT,
        RRCOLLECT,
        RCOLLECT,
        PLUS,
        MINUS,
        SLASH,
        STAR,
        PERCENT,
        BANG,
        DOT,
        PIPE,
        AT,
        ATAT,
        COLON,
        COMMA,
        SEMI,
        QMARK,
        TILDE,
        IN_EDGE,
        IN_EDGE_SUB,
        OUT_EDGE,
        OUT_EDGE_SUB,
        CASE_KW,
        CLASS_KW,
        DEFAULT_KW,
        DEFINE_KW,
        IF_KW,
        ELSIF_KW,
        ELSE_KW,
        INHERITS_KW,
        NODE_KW,
        AND_KW,
        OR_KW,
        UNDEF_KW,
        FALSE_KW,
        TRUE_KW,
        IN_KW,
        UNLESS_KW,
        FUNCTION_KW,
        TYPE_KW,
        ATTR_KW,
        PRIVATE_KW,
        PLAN_KW,
        APPLY_KW,
        NAME,
        BARE_WORD,
        TYPE_NAME,
        VARIABLE,
        NUMBER,
        REGEX,
        SQ_STRING,
        DQUOTE,
        STRING_TEXT,
        INTERP_START,
        INTERP_END,
        HEREDOC_HEADER,
        EPP_TEXT,
        EPP_OPEN,
        EPP_RENDER_OPEN,
        EPP_CLOSE,
        EPP_CLOSE_TRIM,
        EPP_COMMENT,
        ERROR_TOKEN,
        __LAST_TOKEN,
        SOURCE_FILE,
        EPP_FILE,
        EXPR_ROOT,
        HEREDOC_ROOT,
        ERROR,
        BLOCK,
        LITERAL,
        STRING_EXPR,
        INTERPOLATION,
        HEREDOC_EXPR,
        NAME_EXPR,
        TYPE_REF,
        VARIABLE_EXPR,
        RESERVED_WORD,
        ARRAY_EXPR,
        HASH_EXPR,
        HASH_ENTRY,
        BINARY_EXPR,
        UNARY_EXPR,
        ASSIGN_EXPR,
        RELATIONSHIP_EXPR,
        ACCESS_EXPR,
        SELECTOR_EXPR,
        SELECTOR_ENTRY,
        PAREN_EXPR,
        CALL_EXPR,
        ARG_LIST,
        METHOD_CALL_EXPR,
        LAMBDA,
        PARAM_LIST,
        PARAM,
        RETURN_TYPE,
        IF_EXPR,
        ELSIF_CLAUSE,
        ELSE_CLAUSE,
        UNLESS_EXPR,
        CASE_EXPR,
        CASE_OPTION,
        RESOURCE_EXPR,
        RESOURCE_BODY,
        RESOURCE_DEFAULTS_EXPR,
        RESOURCE_OVERRIDE_EXPR,
        ATTRIBUTE_OP,
        ATTRIBUTES_OP,
        COLLECT_EXPR,
        COLLECT_QUERY,
        CLASS_DEF,
        INHERITS_CLAUSE,
        DEFINE_DEF,
        NODE_DEF,
        HOST_MATCH,
        FUNCTION_DEF,
        TYPE_ALIAS,
        TYPE_DEFINITION,
        PLAN_DEF,
        APPLY_EXPR,
        EPP_RENDER_EXPR,
        EPP_RENDER_TEXT,
        EPP_PARAMS,
        __LAST,
    ];
    TABLE[i]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_table_is_in_sync_with_the_enum() {
        for (i, kind) in ALL_KINDS.iter().enumerate() {
            assert_eq!(*kind as usize, i, "{kind:?}");
        }
    }
}
