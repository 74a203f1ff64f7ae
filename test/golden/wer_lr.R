# Golden values for the likelihood-ratio test behind WER verdicts with 5 to 19 speakers per
# group (src/main/stats/wer-lr-bootstrap.ts), computed with R's lme4 (Debian bookworm:
# r-base-core 4.2, r-cran-lme4 1.1-31, r-cran-jsonlite).
#
#   Rscript test/golden/wer_lr.R        # writes test/golden/wer_lr.json
#
# 1. The statistic. For every data set of test/golden/glmm_wer.json and a 5-vs-5-speaker set
#    simulated here: per comparison, LR = -2 log L(null) + 2 log L(full) (Laplace), where full is
#    glmer(errors ~ group + offset(log(words)) + (1 | speaker), family = poisson, nAGQ = 1)
#    and null the same with the compared group relabelled as the reference group; overall,
#    the full model against the intercept-only model. Also the null fit's theta and its rate
#    per group (log scale). lme4 runs with tight convergence control (bobyqa to rhoend 1e-10,
#    PIRLS to tolPwrss 1e-12), so each deviance is the Laplace maximum itself rather than the
#    point where glmer's defaults stop (about 1e-4 away), which is what Equivox computes.
# 2. The bootstrap. On the 5-vs-5 set: a parametric bootstrap of the LR statistic with
#    lme4's own machinery: simulate() from the null fit (new speaker effects, Poisson errors
#    for each utterance's words), refit() both models, nsim replicates (seed recorded). Its
#    quantiles are an independent check of the replicates Equivox draws (different random
#    numbers, the same distribution).
suppressPackageStartupMessages({
  library(lme4)
  library(jsonlite)
})

ctrl <- glmerControl(optimizer = "bobyqa", tolPwrss = 1e-12, optCtrl = list(rhobeg = 0.2, rhoend = 1e-10, maxfun = 1e5), calc.derivs = FALSE)

fit <- function(formula, d) suppressWarnings(suppressMessages(glmer(formula, data = d, family = poisson, nAGQ = 1, control = ctrl)))
# -2 log-likelihood (Laplace). Not deviance(), which for a GLMM is the conditional (residual) deviance.
dev <- function(m) -2 * as.numeric(logLik(m))

statistics <- function(d, reference) {
  d <- d[d$words > 0, ]
  d$group <- relevel(factor(d$group), ref = reference)
  full <- fit(errors ~ group + offset(log(words)) + (1 | speaker), d)
  intercept <- fit(errors ~ 1 + offset(log(words)) + (1 | speaker), d)
  others <- setdiff(levels(d$group), reference)
  comparisons <- lapply(others, function(g) {
    dm <- d
    merged <- as.character(dm$group)
    merged[merged == g] <- reference
    dm$merged <- relevel(factor(merged), ref = reference)
    null <- if (nlevels(dm$merged) > 1) fit(errors ~ merged + offset(log(words)) + (1 | speaker), dm) else fit(errors ~ 1 + offset(log(words)) + (1 | speaker), dm)
    b <- fixef(null)
    rates <- sapply(levels(d$group), function(lv) {
      key <- if (lv == g) reference else lv
      if (key == reference) unname(b[1]) else unname(b[1] + b[paste0("merged", key)])
    })
    list(group = g, chi2 = dev(null) - dev(full), nullTheta = unname(getME(null, "theta")), nullLogRates = as.list(rates))
  })
  list(
    referenceGroup = reference,
    fullDeviance = dev(full),
    fullTheta = unname(getME(full, "theta")),
    comparisons = comparisons,
    overall = list(chi2 = dev(intercept) - dev(full), df = nlevels(d$group) - 1)
  )
}

simulate_set <- function(seed, speakers, utts, sd, base) {
  set.seed(seed)
  rows <- list()
  for (g in c("a", "b")) {
    for (s in seq_len(speakers)) {
      u <- rnorm(1, 0, sd)
      w <- sample(4:18, utts, replace = TRUE)
      rows[[length(rows) + 1]] <- data.frame(group = g, speaker = sprintf("%s-%02d", g, s), words = w, errors = rpois(utts, w * base * exp(u)))
    }
  }
  do.call(rbind, rows)
}

golden <- fromJSON("test/golden/glmm_wer.json", simplifyVector = FALSE)
sets <- lapply(golden$datasets, function(ds) {
  r <- ds$rows
  d <- data.frame(group = unlist(r$group), speaker = unlist(r$speaker), words = unlist(r$words), errors = unlist(r$errors))
  list(name = ds$name, source = "test/golden/glmm_wer.json", lme4 = statistics(d, ds$fits$laplace$referenceGroup))
})

small <- simulate_set(3201, 5, 10, 0.5, 0.12)
smallStats <- statistics(small, "a")

# The bootstrap with lme4's machinery on the small set (two groups: the comparison is the overall test).
nsim <- 400
bootSeed <- 3202
d <- small[small$words > 0, ]
d$group <- relevel(factor(d$group), ref = "a")
full <- fit(errors ~ group + offset(log(words)) + (1 | speaker), d)
null <- fit(errors ~ 1 + offset(log(words)) + (1 | speaker), d)
ys <- simulate(null, nsim = nsim, seed = bootSeed)
lr <- vapply(seq_len(nsim), function(k) {
  y <- ys[[k]]
  dev(suppressWarnings(suppressMessages(refit(null, y)))) - dev(suppressWarnings(suppressMessages(refit(full, y))))
}, numeric(1))
lr <- pmax(lr, 0)
probs <- c(0.25, 0.5, 0.75, 0.9, 0.95)

sets[[length(sets) + 1]] <- list(
  name = "five-vs-five",
  source = "simulated here: set.seed(3201), groups a and b, 5 speakers each, 10 utterances of 4-18 words, speaker SD 0.5, base rate 0.12",
  rows = list(group = small$group, speaker = small$speaker, words = small$words, errors = small$errors),
  lme4 = smallStats,
  bootstrap = list(nsim = nsim, seed = bootSeed, statistics = sort(lr), probs = probs, quantiles = unname(quantile(lr, probs, type = 7)), observed = smallStats$overall$chi2, pValue = (1 + sum(lr >= smallStats$overall$chi2)) / (1 + nsim))
)

versions <- list(R = R.version.string, lme4 = as.character(packageVersion("lme4")), Matrix = as.character(packageVersion("Matrix")))
writeLines(toJSON(list(versions = versions, command = "Rscript test/golden/wer_lr.R", datasets = sets), auto_unbox = TRUE, digits = NA), "test/golden/wer_lr.json")
cat("wrote test/golden/wer_lr.json\n")
