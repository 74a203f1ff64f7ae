# Golden values for the mixed-effects Poisson regression of WER (src/main/stats/glmm.ts),
# computed with R's lme4 (Debian bookworm: r-base-core 4.2, r-cran-lme4 1.1-31).
#
#   Rscript test/golden/glmm_wer.R                 # writes test/golden/glmm_wer.json
#   Rscript test/golden/glmm_wer.R random N FILE   # N random data sets (development check:
#                                                  # bench/glmm-vs-lme4.ts compares them)
#
# Each data set is simulated here with set.seed (the seed is recorded), so the rows and
# the fit sit side by side in the JSON. Utterances with zero reference words stay in the
# data (Equivox must leave them out) but are dropped before glmer, as log(0) has no offset.
# The fit: glmer(errors ~ group + offset(log(words)) + (1 | speaker), family = poisson,
# nAGQ = 1) with lme4's default control; the overall test is anova() against the model
# without group (likelihood ratio, k - 1 df); SEs are vcov() (lme4 uses the Hessian of the
# deviance over (theta, beta) for GLMMs); CIs are Wald on the log scale, exp(b -/+ 1.96 SE).
suppressPackageStartupMessages({
  library(lme4)
  library(jsonlite)
})

simulate <- function(seed, groups, speakers, utts, sd, base, rr, words = 4:18, zero_word_rows = 0, crossed = FALSE) {
  set.seed(seed)
  rows <- list()
  if (crossed) {
    # every speaker records in every group (e.g. recording conditions)
    for (s in seq_len(speakers[1])) {
      u <- rnorm(1, 0, sd)
      for (gi in seq_along(groups)) {
        n <- if (length(utts) == 1) utts else sample(utts, 1)
        w <- sample(words, n, replace = TRUE)
        e <- rpois(n, w * base * rr[gi] * exp(u))
        rows[[length(rows) + 1]] <- data.frame(group = groups[gi], speaker = sprintf("s%03d", s), words = w, errors = e)
      }
    }
  } else {
    for (gi in seq_along(groups)) {
      for (s in seq_len(speakers[gi])) {
        u <- rnorm(1, 0, sd)
        n <- if (length(utts) == 1) utts else sample(utts, 1)
        w <- sample(words, n, replace = TRUE)
        e <- rpois(n, w * base * rr[gi] * exp(u))
        rows[[length(rows) + 1]] <- data.frame(group = groups[gi], speaker = sprintf("%s-%02d", groups[gi], s), words = w, errors = e)
      }
    }
  }
  d <- do.call(rbind, rows)
  if (zero_word_rows > 0) {
    pick <- sample(nrow(d), zero_word_rows)
    d$words[pick] <- 0
    d$errors[pick] <- sample(0:2, zero_word_rows, replace = TRUE) # insertions only
  }
  d
}

fit_one <- function(d, reference, nAGQ = 1) {
  d <- d[d$words > 0, ]
  d$group <- relevel(factor(d$group), ref = reference)
  warned <- character(0)
  m1 <- withCallingHandlers(
    glmer(errors ~ group + offset(log(words)) + (1 | speaker), data = d, family = poisson, nAGQ = nAGQ),
    warning = function(w) { warned <<- c(warned, conditionMessage(w)); invokeRestart("muffleWarning") })
  m0 <- glmer(errors ~ 1 + offset(log(words)) + (1 | speaker), data = d, family = poisson, nAGQ = nAGQ)
  a <- anova(m0, m1)
  co <- summary(m1)$coefficients
  se <- sqrt(diag(as.matrix(vcov(m1))))
  se_rx <- sqrt(diag(as.matrix(suppressWarnings(vcov(m1, use.hessian = FALSE)))))
  groups <- sub("^group", "", rownames(co)[-1])
  list(
    referenceGroup = reference,
    nAGQ = nAGQ,
    groups = groups,
    coefficients = unname(co[-1, "Estimate"]),
    standardErrors = unname(se[-1]),
    standardErrorsConditional = unname(se_rx[-1]),
    z = unname(co[-1, "z value"]),
    pValues = unname(co[-1, "Pr(>|z|)"]),
    ci95 = lapply(seq_along(groups), function(i) unname(exp(co[i + 1, "Estimate"] + c(-1, 1) * qnorm(0.975) * se[i + 1]))),
    intercept = unname(co[1, "Estimate"]),
    theta = unname(getME(m1, "theta")),
    speakerVariance = unname(as.numeric(VarCorr(m1)$speaker)),
    logLikelihood = as.numeric(logLik(m1)),
    logLikelihoodReduced = as.numeric(logLik(m0)),
    singular = isSingular(m1),
    warnings = I(warned),
    overall = list(chi2 = a$Chisq[2], df = a$Df[2], pValue = a[["Pr(>Chisq)"]][2])
  )
}

record <- function(name, seed, d, reference, note, agq = FALSE) {
  fits <- list(laplace = fit_one(d, reference, 1))
  if (agq) fits$agq7 <- fit_one(d, reference, 7)
  list(name = name, seed = seed, note = note, rows = list(group = d$group, speaker = d$speaker, words = d$words, errors = d$errors), fits = fits)
}

args <- commandArgs(trailingOnly = TRUE)
versions <- list(R = R.version.string, lme4 = as.character(packageVersion("lme4")), Matrix = as.character(packageVersion("Matrix")))

if (length(args) >= 1 && args[1] == "random") {
  n <- as.integer(args[2])
  out <- list()
  for (k in seq_len(n)) {
    seed <- 9000 + k
    set.seed(seed)
    ng <- sample(2:4, 1)
    groups <- c("ref", paste0("g", seq_len(ng - 1)))
    speakers <- sample(5:40, ng, replace = TRUE)
    sd <- sample(c(0, 0.1, 0.3, 0.5, 0.8, 1.2), 1)
    base <- runif(1, 0.03, 0.4)
    rr <- c(1, exp(rnorm(ng - 1, 0, 0.25)))
    crossed <- runif(1) < 0.2
    if (crossed) speakers <- rep(speakers[1], ng)
    d <- simulate(seed + 100000, groups, speakers, 2:20, sd, base, rr, zero_word_rows = sample(0:3, 1), crossed = crossed)
    res <- tryCatch(record(sprintf("random-%d", k), seed, d, "ref", sprintf("%d groups, speaker SD %.1f, base rate %.3f%s", ng, sd, base, if (crossed) ", crossed" else "")), error = function(e) NULL)
    if (!is.null(res)) out[[length(out) + 1]] <- res
  }
  writeLines(toJSON(list(versions = versions, datasets = out), auto_unbox = TRUE, digits = NA), args[3])
  quit(status = 0)
}

datasets <- list(
  # 3 groups, 15 speakers each, 10 utterances each, speakers differ (log-normal SD 0.5)
  record("three-groups", 1301, simulate(1301, c("en-us", "en-gb", "en-in"), c(15, 15, 15), 10, 0.5, 0.12, c(1, 1.3, 0.9)), "en-us",
         "3 groups x 15 speakers x 10 utterances, speaker SD 0.5, rate ratios 1.3 and 0.9", agq = TRUE),
  # no speaker variation at all: lme4 ends on the boundary theta = 0 (singular fit)
  record("boundary", 1302, simulate(1302, c("female", "male"), c(12, 12), 8, 0, 0.15, c(1, 1.2)), "female",
         "2 groups x 12 speakers x 8 utterances, no speaker effect: speaker variance on the boundary"),
  # unbalanced: 18 vs 6 speakers, 1-25 utterances each, 3 zero-word utterances to leave out
  record("unbalanced", 1303, simulate(1303, c("l1", "l2"), c(18, 6), 1:25, 0.7, 0.2, c(1, 1.5), zero_word_rows = 3), "l1",
         "18 vs 6 speakers with 1-25 utterances each, speaker SD 0.7, 3 utterances without reference words", agq = TRUE),
  # crossed: every speaker in every group (recording conditions), 4 groups
  record("crossed-four-groups", 1304, simulate(1304, c("quiet", "cafe", "car", "street"), 20, 3:8, 0.6, 0.1, c(1, 1.4, 1.2, 0.8), crossed = TRUE), "quiet",
         "4 conditions, the same 20 speakers in each, 3-8 utterances per speaker and condition, speaker SD 0.6")
)
for (d in datasets) if (d$name == "boundary" && !d$fits$laplace$singular) stop("boundary data set is not singular in lme4: pick another seed")
writeLines(toJSON(list(versions = versions, command = "Rscript test/golden/glmm_wer.R", datasets = datasets), auto_unbox = TRUE, digits = NA, pretty = FALSE),
           "test/golden/glmm_wer.json")
cat("wrote test/golden/glmm_wer.json\n")
